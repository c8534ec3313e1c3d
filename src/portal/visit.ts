// One request to a workspace's portal: its cookies, the signed-in buyer, the forms' CSRF checks
// and budgets, and the answers (pages and redirects, with the cookies they set). Cookies are
// HTTP-only, SameSite=Lax, scoped to the workspace's portal path, and Secure when the portal is
// reached over TLS.
import { randomBytes } from 'node:crypto';

import type { RateLimitRule } from '../core/rate-limits.js';
import type { EndpointRequest } from '../http/endpoint.js';
import { readRawBody } from '../http/body.js';
import { portalBaseUrl } from './base-url.js';
import { portalPath, type PortalPage } from './pages/layout.js';
import { buyerOf, SESSION_SECONDS, type Buyer, type PortalWorkspace } from './sessions.js';
import { csrfToken, sameText } from './tokens.js';

const SESSION_COOKIE = 'portal_session';
/** Before sign-in, the forms' CSRF tokens are bound to this cookie (double submit, signed). */
const FORM_COOKIE = 'portal_form';

function parseCookies(header: string | null): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) cookies.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return cookies;
}

/** A path of this workspace's portal to go to after sign-in, or null for anything else (no open redirect). */
export function safeNext(workspaceId: string, raw: string | null | undefined): string | null {
  if (!raw || raw.length > 1000) return null;
  const prefix = `${portalPath(workspaceId)}/`;
  return raw.startsWith(prefix) && !/[\\\s]|\/\/|\/\.\.?(\/|$|\?)/.test(raw) ? raw : null;
}

export class Visit {
  readonly now = new Date();
  private readonly cookies: Map<string, string>;
  private readonly setCookies: string[] = [];
  private buyerLookup: Promise<Buyer | null> | undefined;

  constructor(
    readonly endpoint: EndpointRequest,
    readonly workspace: PortalWorkspace,
  ) {
    this.cookies = parseCookies(endpoint.request.headers.get('cookie'));
  }

  get url() {
    return this.endpoint.url;
  }

  get method() {
    return this.endpoint.request.method;
  }

  /** The portal's base URL as links to it are written (emails). */
  get base() {
    return portalBaseUrl(this.url.origin);
  }

  /** Secure cookies when the portal is reached over TLS (its own URL, or its configured base behind a proxy). */
  private get secure() {
    return this.url.protocol === 'https:' || this.base.startsWith('https:');
  }

  private cookie(name: string, value: string, maxAge: number) {
    this.setCookies.push(`${name}=${value}; Path=${portalPath(this.workspace.id)}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${this.secure ? '; Secure' : ''}`);
  }

  /** The signed-in buyer (looked up once), or null. */
  buyer(): Promise<Buyer | null> {
    return (this.buyerLookup ??= buyerOf(this.endpoint.prisma, this.workspace, this.cookies.get(SESSION_COOKIE), this.now));
  }

  /** Signs the browser in with a new session's token (replacing any other of this workspace). */
  signIn(token: string) {
    this.cookie(SESSION_COOKIE, token, SESSION_SECONDS);
    this.buyerLookup = undefined;
  }

  signOut() {
    this.cookie(SESSION_COOKIE, '', 0);
  }

  /** The CSRF token for a form shown before sign-in: bound to the form cookie, set now when the browser has none. */
  anonymousCsrf(): string {
    let value = this.cookies.get(FORM_COOKIE);
    if (!value || !/^[A-Za-z0-9_-]{43}$/.test(value)) {
      value = randomBytes(32).toString('base64url');
      this.cookies.set(FORM_COOKIE, value);
      this.cookie(FORM_COOKIE, value, 24 * 60 * 60);
    }
    return csrfToken(`form:${this.workspace.id}:${value}`);
  }

  /**
   * A state-changing form's fields once its CSRF token holds (the signed-in session's when there
   * is one, else the form cookie's) and its budgets allow it; null for a refused token.
   */
  async form(budgets: readonly { rule: RateLimitRule; key: string }[]): Promise<URLSearchParams | null> {
    const fields = new URLSearchParams(new TextDecoder().decode(await readRawBody(this.endpoint.request, this.endpoint.limits)));
    const buyer = await this.buyer();
    const given = fields.get('csrf') ?? '';
    const cookie = this.cookies.get(FORM_COOKIE);
    const expected = buyer ? [buyer.csrf] : [];
    if (cookie) expected.push(csrfToken(`form:${this.workspace.id}:${cookie}`));
    if (!expected.some((token) => sameText(given, token))) return null;
    for (const { rule, key } of budgets) await this.endpoint.rateLimits.spend(rule, key);
    return fields;
  }

  page({ status, html, headers }: PortalPage): Response {
    const response = new Response(html, { status, headers: { ...headers } });
    for (const cookie of this.setCookies) response.headers.append('set-cookie', cookie);
    return response;
  }

  /** 303 See Other: after a form (POST, redirect, GET), and into the portal from a sign-in. */
  redirect(location: string): Response {
    const response = new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } });
    for (const cookie of this.setCookies) response.headers.append('set-cookie', cookie);
    return response;
  }
}
