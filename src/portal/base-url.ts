// Where the buyer portal lives: PORTAL_BASE_URL (README, "Configuration"), an http(s) URL; by
// default this service's own address under /portal. A malformed value stops the process at start
// rather than hand out broken links.
export function portalBaseUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const raw = env.PORTAL_BASE_URL?.trim() || `http://${env.HOST?.trim() || '127.0.0.1'}:${env.PORT?.trim() || '3000'}/portal`;
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

/** The process's portal base URL, read once when the portal domain loads. */
export const PORTAL_BASE_URL = portalBaseUrlFromEnv();
