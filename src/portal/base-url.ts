// Where the buyer portal lives: PORTAL_BASE_URL (README, "Configuration"), an http(s) URL; by
// default this service's own public address under /portal, where it serves the portal's pages
// (./endpoint.ts). A malformed value stops the process at start rather than hand out broken links.
import { config } from '../config.js';

/** The path this service serves the portal under; a proxy behind PORTAL_BASE_URL forwards to it. */
export const PORTAL_PATH = '/portal';

export function portalBaseUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const raw = env.PORTAL_BASE_URL?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('PORTAL_BASE_URL must be an http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('PORTAL_BASE_URL must be an http:// or https:// URL');
  if (url.search || url.hash) throw new Error('PORTAL_BASE_URL must not carry a query or a fragment');
  return url.href.replace(/\/+$/, '');
}

/** The process's PORTAL_BASE_URL, read once when the portal domain loads. */
const PORTAL_BASE_URL = portalBaseUrlFromEnv();

/** The portal's base URL: PORTAL_BASE_URL, else /portal of PUBLIC_BASE_URL, else of the origin the request came to. */
export const portalBaseUrl = (origin: string) => PORTAL_BASE_URL ?? `${config.downloads.publicBaseUrl ?? origin}${PORTAL_PATH}`;
