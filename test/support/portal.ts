// The buyer portal's tests: a server process of their own that sends its email to an SMTP
// receiver in the test (smtp-server), on a known port so the links it writes lead back to it, and
// a small cookie-keeping client for the portal's pages and forms.
import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

import { baseUrl, keyHeaders, type Workspace } from './api.js';
import { restClient } from './client.js';
import { ok } from './responses.js';
import { orderBody, payCheckout } from './checkout.js';
import { salesDb } from './sales.js';
import { httpOnlyEnv, startServerProcess, type ServerProcess } from './processes.js';

export interface Mail {
  to: string[];
  subject: string;
  text: string;
}

/** Quoted-printable text as nodemailer writes long lines. */
const unQuote = (body: string) => body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

function parseMail(raw: string, to: string[]): Mail {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split);
  const body = raw.slice(split + 4);
  const subject = /^Subject: (.*)$/im.exec(head)?.[1]?.trim() ?? '';
  return { to, subject, text: /quoted-printable/i.test(head) ? unQuote(body) : body };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export interface PortalServer {
  url: string;
  process: ServerProcess;
  mails: Mail[];
  /** The next email to `to` (after the `seen` first ones), waiting up to 30 s. */
  mailTo(to: string, seen?: number): Promise<Mail>;
  stop(): Promise<void>;
}

export async function startPortalServer(env: Record<string, string> = {}): Promise<PortalServer> {
  const mails: Mail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push(parseMail(Buffer.concat(chunks).toString('utf8'), session.envelope.rcptTo.map((r) => r.address)));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
  const port = await freePort();
  const server = await startServerProcess({ ...httpOnlyEnv(), DATABASE_URL: process.env.DATABASE_URL!, SMTP_URL: smtpUrl, PORT: String(port), ...env });
  return {
    url: server.url,
    process: server,
    mails,
    async mailTo(to, seen = 0) {
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
        const found = mails.filter((mail) => mail.to.includes(to));
        if (found.length > seen) return found[seen]!;
      }
      throw new Error(`no email to ${to} arrived`);
    },
    async stop() {
      await server.stop();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    },
  };
}

/** The sign-in links in a portal email. */
export const signInLinks = (mail: Mail) => [...mail.text.matchAll(/https?:\/\/\S+\/sign-in\/psl_[A-Za-z0-9_-]{43}/g)].map((m) => m[0]);

/**
 * GET /v0/portal/url on `serverUrl` (the public key is enough). The link's origin is the server's
 * (the suite's server listens on a port of its choosing, which its default portal base cannot name).
 */
export async function portalLink(serverUrl: string, ws: Workspace, query: Record<string, string>): Promise<string> {
  const response = await fetch(`${serverUrl}/v0/portal/url?${new URLSearchParams(query)}`, { headers: keyHeaders(ws, { write: false }) });
  const body = (await response.json()) as { data?: { url: string } };
  if (response.status !== 200) throw new Error(`portal/url answered ${response.status}: ${JSON.stringify(body)}`);
  return onServer(serverUrl, body.data!.url);
}

const onServer = (serverUrl: string, link: string) => {
  const url = new URL(link);
  return new URL(`${url.pathname}${url.search}`, serverUrl).href;
};

/** POST /v0/portal/sessions on `serverUrl` (both keys): the sign-in URL, on that server. */
export async function portalSession(serverUrl: string, ws: Workspace, body: Record<string, string>): Promise<string> {
  const response = await fetch(`${serverUrl}/v0/portal/sessions`, { method: 'POST', headers: { ...keyHeaders(ws), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await response.json()) as { data?: { url: string } };
  if (response.status !== 200) throw new Error(`portal/sessions answered ${response.status}: ${JSON.stringify(answer)}`);
  return onServer(serverUrl, answer.data!.url);
}

/** A client signed in as the buyer of `orderNumber` through a portal session's sign-in URL. */
export async function signInByLink(serverUrl: string, ws: Workspace, orderNumber: string): Promise<PortalClient> {
  const client = new PortalClient(serverUrl);
  const landed = await client.follow(await portalSession(serverUrl, ws, { type: 'orders-view', orderNumber }));
  if (landed.status !== 200) throw new Error(`the portal session's URL answered ${landed.status}`);
  return client;
}

export interface Answer {
  status: number;
  headers: Headers;
  html: string;
  location: string | null;
}

/** A browser's cookie jar over fetch, following no redirect by itself. */
export class PortalClient {
  readonly cookies = new Map<string, string>();
  readonly setCookieHeaders: string[] = [];

  constructor(readonly base: string) {}

  private async send(url: string, init: RequestInit): Promise<Answer> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(new URL(url, this.base), { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) } });
    for (const header of response.headers.getSetCookie()) {
      this.setCookieHeaders.push(header);
      const [pair] = header.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (/Max-Age=0/i.test(header)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, headers: response.headers, html: await response.text(), location: response.headers.get('location') };
  }

  get(url: string) {
    return this.send(url, { method: 'GET' });
  }

  post(url: string, fields: Record<string, string>) {
    return this.send(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  }

  /** GET, then follow redirects within the portal's server (up to 5). */
  async follow(url: string): Promise<Answer & { url: string }> {
    let current = new URL(url, this.base).href;
    for (let hop = 0; hop < 5; hop++) {
      const answer = await this.get(current);
      if (answer.status !== 303 && answer.status !== 302) return { ...answer, url: current };
      current = new URL(answer.location!, current).href;
    }
    throw new Error(`too many redirects from ${url}`);
  }
}

/** The CSRF token of the page's first form (or of the form whose action ends with `action`). */
export function csrfOf(html: string, action?: string): string {
  const forms = [...html.matchAll(/<form method="post" action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)];
  const form = action ? forms.find((f) => f[1]!.endsWith(action)) : forms[0];
  const token = form ? /name="csrf" value="([^"]*)"/.exec(form[2]!)?.[1] : undefined;
  if (!token) throw new Error(`no form${action ? ` posting to …${action}` : ''} with a CSRF token`);
  return token;
}

/** A hidden field's value in the page (as a browser sends it: its HTML entities read). */
export function hiddenField(html: string, name: string): string {
  const value = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html)?.[1];
  if (value === undefined) throw new Error(`no hidden field ${name}`);
  return value.replace(/&(amp|lt|gt|quot|#39);/g, (_, entity: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[entity]!);
}

/** Signs a buyer in by email through the portal's own forms; returns the client holding the session. */
export async function signInByEmail(server: PortalServer, workspaceId: string, email: string): Promise<PortalClient> {
  const client = new PortalClient(server.url);
  const seen = server.mails.filter((mail) => mail.to.includes(email)).length;
  const form = await client.get(`/portal/${workspaceId}/sign-in`);
  const asked = await client.post(`/portal/${workspaceId}/sign-in`, { csrf: csrfOf(form.html), email });
  if (asked.status !== 200) throw new Error(`sign-in form answered ${asked.status}`);
  const [link] = signInLinks(await server.mailTo(email, seen));
  const confirm = await client.get(link!);
  const signedIn = await client.post(link!, { csrf: csrfOf(confirm.html) });
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}: ${signedIn.html}`);
  return client;
}

/** A checkout paid by `email` (the sandbox's succeeding card); a subscription's first period has begun when it returns. */
export async function buy(ws: Workspace, elementId: string, email: string): Promise<{ id: string; number: string; subscriptionId: string | null }> {
  const { status, body } = await payCheckout(elementId, orderBody({ email }), randomUUID());
  if (status !== 200) throw new Error(`checkout answered ${status}: ${JSON.stringify(body)}`);
  const order = body.data.order as { id: string; number: string };
  const row = await salesDb().order.findUniqueOrThrow({ where: { id: order.id }, select: { subscriptionId: true } });
  if (row.subscriptionId) {
    for (let deadline = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 100))) {
      const subscription = await salesDb().subscription.findUniqueOrThrow({ where: { id: row.subscriptionId } });
      if (subscription.currentPeriodEnd) break;
      if (Date.now() > deadline) throw new Error('the subscription workflow never started');
    }
  }
  return { ...order, subscriptionId: row.subscriptionId };
}

/** A product of `type` on sale through its own checkout element (its offer's price `price`), in live mode. */
async function shop(ws: Workspace, type: 'SoftwareKey' | 'DigitalDownload', price: number) {
  const client = restClient(ws);
  const { product } = await ok(client.POST('/v0/products/create', { body: { name: `${type === 'SoftwareKey' ? 'Key' : 'File'} product ${randomUUID().slice(0, 6)}`, projectId: ws.projectId, type } }));
  const { offer } = await ok(client.POST('/v0/offers/create', { body: { productId: product.id, price, currency: 'USD' } }));
  const { checkoutElement } = await ok(client.POST('/v0/elements/checkout/create', { body: { offersIds: [offer.id] } }));
  return { productId: product.id as string, elementId: checkoutElement.id as string };
}

/** A license-key product with `keys` in stock, on sale. */
export async function keyShop(ws: Workspace, keys: string[], price = 2500) {
  const sold = await shop(ws, 'SoftwareKey', price);
  await ok(restClient(ws).POST('/v0/products/{productId}/keys', { params: { path: { productId: sold.productId } }, body: { keys } }));
  return sold;
}

/** A download product whose file is `bytes`, on sale. */
export async function fileShop(ws: Workspace, bytes: Uint8Array, fileName: string, price = 1200) {
  const sold = await shop(ws, 'DigitalDownload', price);
  const response = await fetch(`${baseUrl()}/v0/products/${sold.productId}/files/upload?fileName=${encodeURIComponent(fileName)}`, {
    method: 'POST',
    headers: { ...keyHeaders(ws), 'content-type': 'text/plain' },
    body: bytes as BodyInit,
  });
  if (response.status !== 200) throw new Error(`file upload answered ${response.status}`);
  return sold;
}
