// The document's examples: each operation's request (parameters, body) and response as the test
// suite exchanged them, recorded and normalised by `npm run examples` (scripts/openapi-examples.ts)
// into schema/openapi-examples.json, which is committed; the generator checks that every
// operation has one and that each validates.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** What an operation of the document offers to its examples. */
interface Operation {
  parameters?: { name: string; in: string; example?: unknown }[];
  requestBody?: { content: Record<string, { examples?: unknown }> };
  responses: Record<string, unknown>;
}

/** One operation's recorded exchange (scripts/openapi-examples.ts writes them, normalised). */
interface RecordedExample {
  request: { path?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown };
  response: unknown;
}

/** schema/openapi-examples.json, by "METHOD /path/{template}"; none before the first recording. */
export function recordedExamples(): Record<string, RecordedExample> {
  const file = fileURLToPath(new URL('../../schema/openapi-examples.json', import.meta.url));
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, RecordedExample>) : {};
}

const recorded = (value: unknown) => ({ recorded: { summary: 'Recorded from the test suite', value } });

/** Each operation's recorded request (parameters, body) and response as its examples. */
export function addExamples(paths: Record<string, Record<string, Operation>>, examples: Record<string, RecordedExample>): void {
  for (const [key, example] of Object.entries(examples)) {
    const [method, template] = key.split(' ') as [string, string];
    const operation = paths[template]?.[method.toLowerCase()];
    // An example of an operation that is gone: the generator's check reports the document's gaps.
    if (!operation) continue;
    for (const parameter of operation.parameters ?? []) {
      const value = parameter.in === 'path' ? example.request.path?.[parameter.name] : parameter.in === 'query' ? example.request.query?.[parameter.name] : undefined;
      if (value !== undefined) parameter.example = value;
    }
    if (example.request.body !== undefined) for (const content of Object.values(operation.requestBody?.content ?? {})) content.examples = recorded(example.request.body);
    const success = operation.responses['200'] as { content: Record<string, { examples?: unknown }> };
    success.content['application/json']!.examples = recorded(example.response);
  }
}
