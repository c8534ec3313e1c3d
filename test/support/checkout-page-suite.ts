// What the checkout page test files share: elements, the page's URL and the hostile names
// (the suite is split along its describe blocks, each file under 400 lines).
import { baseUrl, type KeyChoice, type Workspace } from './api.js';
import { restClient } from './client.js';
import { ok } from './responses.js';

export const TEST: KeyChoice = { mode: 'test' };

export async function newElement(ws: Workspace, offersIds: string[], extra: Record<string, unknown> = {}, key: KeyChoice = {}) {
  const { checkoutElement } = await ok(restClient(ws, key).POST('/v0/elements/checkout/create', { body: { offersIds, ...extra } }));
  return checkoutElement as { id: string; name: string | null };
}

export const pageUrl = (id: string, query = '') => `${baseUrl()}/checkout/${id}${query}`;

export const XSS_NAME = `</title><script>alert("element")</script><img src=x onerror="alert('element')">&amp;`;
export const XSS_OFFER = `"><svg onload=alert('offer')>'<script>alert(1)</script>`;
