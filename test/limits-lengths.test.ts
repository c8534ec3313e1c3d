import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { JSON_LIMITS, STRING_LIMITS } from '../src/graphql/input-limits.js';
import { QUERY_LIMITS } from '../src/graphql/query-limits.js';
import { baseUrl } from './support/api.js';
import { operationAt, operationsOf, responseProblems, unwrapNullable, type Schema } from './support/openapi.js';
import { ROOT } from './support/processes.js';
import { document, send, expectRefused, productsNamed, productBody } from './support/limits-suite.js';

describe('string lengths', () => {
  /** A value of a schema that gets past type checks (not business rules): the smallest of its type. */
  function minimal(schema: Schema): unknown {
    const { node } = unwrapNullable(document, schema);
    if (node.enum) return node.enum[0];
    switch (node.type) {
      case 'string':
        return node.format === 'uuid' ? randomUUID() : 'x';
      case 'integer':
      case 'number':
        return 1;
      case 'boolean':
        return true;
      case 'array':
        return [];
      case 'object':
        return Object.fromEntries(((node.required ?? []) as string[]).map((key) => [key, minimal(node.properties[key])]));
      default:
        return {};
    }
  }

  interface Limited {
    method: string;
    path: string;
    /** The argument, dotted into an input object, with [0] for a list item. */
    where: string;
    maxLength: number;
    request(value: string): { path: string; body?: string };
  }

  /** Every string the document gives a maxLength, in query strings, bodies and input objects of bodies. */
  function limitedStrings(): Limited[] {
    const found: Limited[] = [];
    for (const { path: template, method, operation } of operationsOf(document)) {
      const path = template.replace(/\{[^}]+\}/g, () => randomUUID());
      for (const parameter of (operation.parameters ?? []) as Schema[]) {
        const item = parameter.schema.type === 'array' ? parameter.schema.items : parameter.schema;
        if (parameter.in !== 'query' || item.maxLength === undefined) continue;
        const list = parameter.schema.type === 'array';
        found.push({ method, path: template, where: `${parameter.name}${list ? '[0]' : ''}`, maxLength: item.maxLength, request: (value) => ({ path: `${path}?${parameter.name}=${encodeURIComponent(value)}` }) });
      }
      const bodySchema = operation.requestBody?.content['application/json']?.schema;
      if (!bodySchema) continue;
      const base = minimal(bodySchema) as Record<string, unknown>;
      const withValue = (name: string, value: unknown) => ({ path, body: JSON.stringify({ ...base, [name]: value }) });
      for (const [name, property] of Object.entries(bodySchema.properties as Record<string, Schema>)) {
        const { node: inner } = unwrapNullable(document, property);
        if (inner.type === 'string' && inner.maxLength !== undefined) {
          found.push({ method, path: template, where: name, maxLength: inner.maxLength, request: (value) => withValue(name, value) });
        } else if (inner.type === 'array' && inner.items.maxLength !== undefined) {
          found.push({ method, path: template, where: `${name}[0]`, maxLength: inner.items.maxLength, request: (value) => withValue(name, [value]) });
        } else if (inner.type === 'object') {
          for (const [field, fieldSchema] of Object.entries((inner.properties ?? {}) as Record<string, Schema>)) {
            if (fieldSchema.maxLength === undefined) continue;
            found.push({ method, path: template, where: `${name}.${field}`, maxLength: fieldSchema.maxLength, request: (value) => withValue(name, { ...(minimal(inner) as object), [field]: value }) });
          }
        }
      }
    }
    return found;
  }

  test('docs/decisions/general.md states exactly the limits the server enforces', async () => {
    const text = await readFile(path.join(ROOT, 'docs/decisions/general.md'), 'utf8');
    const documented: Record<string, number> = {};
    for (const [, max, names] of text.matchAll(/^\s*\| ([\d,]+) \| (`.*`) \|$/gm)) {
      for (const [, name] of names!.matchAll(/`(\w+)`/g)) documented[name!] = Number(max!.replace(/,/g, ''));
    }
    expect(documented).toEqual(STRING_LIMITS);
    const n = (value: number) => value.toLocaleString('en-US');
    expect(text).toContain(`at most **${n(JSON_LIMITS.depth)}** levels deep`);
    expect(text).toContain(`every key has\n  at most **${n(JSON_LIMITS.key)}** characters and every string at most **${n(JSON_LIMITS.string)}**`);
    expect(text).toContain(`at most **${n(QUERY_LIMITS.tokens)}** tokens (parsing stops there), **${n(QUERY_LIMITS.depth)}**\n  levels of nested selections and **${n(QUERY_LIMITS.fields)}** field selections`);
  });

  test('every string argument in the document has a maxLength', () => {
    const unlimited = operationsOf(document).flatMap(({ method, path, operation }) => {
      const fields: Array<[string, Schema]> = [
        ...((operation.parameters ?? []) as Schema[]).map((p): [string, Schema] => [p.name, p.schema]),
        ...Object.entries((operation.requestBody?.content['application/json']?.schema.properties ?? {}) as Record<string, Schema>),
      ];
      return fields
        .map(([name, schema]): [string, Schema] => [name, unwrapNullable(document, schema).node])
        .filter(([, schema]) => (schema.type === 'string' && !schema.format && !schema.enum && schema.maxLength === undefined) || (schema.type === 'array' && schema.items.type === 'string' && !schema.items.format && schema.items.maxLength === undefined))
        .map(([name]) => `${method} ${path} ${name}`);
    });
    expect(unlimited).toEqual([]);
    expect(limitedStrings().length).toBeGreaterThan(60);
  });

  test('one character over the documented maxLength is a 400 naming the field; at the limit it is not refused for its length', async () => {
    for (const limited of limitedStrings()) {
      const over = limited.request('é'.repeat(limited.maxLength + 1));
      const refused = await send(limited.method, over.path, { body: over.body });
      expect([limited.method, limited.path, limited.where, refused.status, refused.body?.error?.message]).toEqual([
        limited.method,
        limited.path,
        limited.where,
        400,
        `${limited.where}: at most ${limited.maxLength} characters`,
      ]);
      expect(responseProblems(document, operationAt(document, limited.method, over.path.split('?')[0]!).operation, refused.status, refused.body)).toEqual([]);
      // Characters, not UTF-16 units: a string of astral characters at the limit passes this check.
      const at = limited.request('😀'.repeat(limited.maxLength));
      const answer = await send(limited.method, at.path, { body: at.body });
      expect([limited.method, limited.path, limited.where, answer.body?.error?.message ?? 'accepted']).not.toEqual([
        limited.method,
        limited.path,
        limited.where,
        expect.stringMatching(/at most \d+ characters/),
      ]);
      expect(answer.status).toBeLessThan(500);
    }
  }, 120_000);

  test('the issue\'s 2,800-character lowercase slug is a 400 naming slug and never reaches the database', async () => {
    const name = `Long slug ${randomUUID()}`;
    const answer = await send('POST', '/v0/products/create', { body: productBody(name, `,"slug":"${'a'.repeat(2_800)}"`) });
    expectRefused(answer, 400, 'POST', '/v0/products/create', 'slug: at most 100 characters');
    expect(await productsNamed(name)).toBe(0);
    const fits = await send('POST', '/v0/products/create', { body: productBody(name, `,"slug":"${'a'.repeat(100)}"`) });
    expect(fits.status).toBe(200);
  });

  test('JSON values: keys of at most 200 and strings of at most 2,048 characters, at any depth', async () => {
    const name = `Json strings ${randomUUID()}`;
    const refuse = async (customFields: unknown, message: string) =>
      expectRefused(await send('POST', '/v0/products/create', { body: productBody(name, `,"customFields":${JSON.stringify(customFields)}`) }), 400, 'POST', '/v0/products/create', message);
    await refuse({ ['k'.repeat(201)]: 1 }, 'customFields (a key): at most 200 characters');
    await refuse({ a: { b: ['ok', 'v'.repeat(2_049)] } }, 'customFields.a.b[1]: at most 2048 characters');
    await refuse({ a: 'nul\u0000' }, 'body.customFields.a: contains a NUL character');
    expect(await productsNamed(name)).toBe(0);
    const fits = await send('POST', '/v0/products/create', { body: productBody(name, `,"customFields":${JSON.stringify({ ['k'.repeat(200)]: 'v'.repeat(2_048) })}`) });
    expect(fits.status).toBe(200);
  });
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends bytes on a fresh connection and reads every response until the server closes it. */
function exchange(bytes: string | Buffer): Promise<{ answers: RawAnswer[]; closed: boolean }> {
  const { hostname, port } = new URL(baseUrl());
  return new Promise((done, fail) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      done({ answers: parseAnswers(Buffer.concat(chunks)), closed: false });
    }, 10_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', fail);
    socket.on('close', () => {
      clearTimeout(timer);
      done({ answers: parseAnswers(Buffer.concat(chunks)), closed: true });
    });
    socket.write(bytes);
  });
}

/** HTTP/1.1 responses, one after another, with content-length or chunked bodies. */
function parseAnswers(data: Buffer): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let text = data.toString('latin1');
  while (text.length > 0) {
    const end = text.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`incomplete response: ${text}`);
    const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    let rest = text.slice(end + 4);
    let body = '';
    if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const lineEnd = rest.indexOf('\r\n');
        const size = parseInt(rest.slice(0, lineEnd), 16);
        body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
        rest = rest.slice(lineEnd + 2 + size + 2);
        if (size === 0) break;
      }
    } else {
      const length = Number(headers['content-length'] ?? 0);
      body = rest.slice(0, length);
      rest = rest.slice(length);
    }
    answers.push({ status: Number(statusLine!.split(' ')[1]), headers, body });
    text = rest;
  }
  return answers;
}

describe('answers of the HTTP parser', () => {
  const request = (target: string, headers: string[] = []) => [`GET ${target} HTTP/1.1`, 'Host: localhost', ...headers, '', ''].join('\r\n');

  function expectEnvelope(answer: RawAnswer | undefined, status: number, message: RegExp) {
    expect(answer?.status).toBe(status);
    expect(answer!.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer!.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer!.headers.connection).toBe('close');
    const body = JSON.parse(answer!.body);
    expect(body).toEqual({ status: 'error', error: { message: expect.stringMatching(message) } });
    return body;
  }

  test('headers too large are 431 in the envelope, as documented for every operation, then the connection closes', async () => {
    const { answers, closed } = await exchange(request('/v0/products/list', [`x-padding: ${'a'.repeat(20_000)}`]));
    const body = expectEnvelope(answers[0], 431, /headers are too large/);
    expect(responseProblems(document, operationAt(document, 'GET', '/v0/products/list').operation, 431, body)).toEqual([]);
    expect(closed).toBe(true);
  });

  test('a URL too large is 431', async () => {
    const { answers, closed } = await exchange(request(`/v0/products/list?termOrId=${'a'.repeat(20_000)}`));
    expectEnvelope(answers[0], 431, /too large/);
    expect(closed).toBe(true);
  });

  test('bytes that are not HTTP, and a NUL in a header, are 400', async () => {
    for (const bytes of [Buffer.from([0xff, 0xfe, 0xfd, 0x0d, 0x0a, 0x0d, 0x0a]), request('/v0/products/list', ['x-note: a\u0000b']), request('/v0/products/list', ['bad header'])]) {
      const { answers, closed } = await exchange(bytes);
      expect(answers).toHaveLength(1);
      expectEnvelope(answers[0], 400, /not valid HTTP/);
      expect(closed).toBe(true);
    }
  });

  test('a bad request behind a good one on a kept-alive connection: the good one is answered, then the 400', async () => {
    const { answers, closed } = await exchange(`${request('/healthz')}NOT HTTP\r\n\r\n`);
    expect(answers.map((a) => a.status)).toEqual([200, 400]);
    expectEnvelope(answers[1], 400, /not valid HTTP/);
    expect(closed).toBe(true);
  });

  test('an Expect other than 100-continue is 417 and CONNECT is 405, both in the envelope', async () => {
    const expectation = await exchange(
      ['POST /v0/products/create HTTP/1.1', 'Host: localhost', 'Expect: tea', 'x-request-id: expect-me', 'content-type: application/json', 'content-length: 2', '', '{}'].join('\r\n'),
    );
    expect(expectation.answers[0]?.status).toBe(417);
    expect(expectation.answers[0]?.headers['x-request-id']).toBe('expect-me');
    expect(JSON.parse(expectation.answers[0]!.body)).toEqual({ status: 'error', error: { message: expect.stringMatching(/100-continue/) } });
    const connect = await exchange('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expectEnvelope(connect.answers[0], 405, /CONNECT is not allowed/);
    expect(connect.closed).toBe(true);
  });
});
