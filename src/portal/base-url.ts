// Where the buyer portal lives: PORTAL_BASE_URL (README, "Configuration"; checked at start by
// src/config.ts), else this service's own public address under /portal, where it serves the
// portal's pages (./endpoint.ts).
import { config } from '../config.js';

/** The path this service serves the portal under; a proxy behind PORTAL_BASE_URL forwards to it. */
export const PORTAL_PATH = '/portal';

/** The portal's base URL: PORTAL_BASE_URL, else /portal of PUBLIC_BASE_URL, else of the origin the request came to. */
export const portalBaseUrl = (origin: string) => config.portalBaseUrl ?? `${config.publicBaseUrl ?? origin}${PORTAL_PATH}`;
