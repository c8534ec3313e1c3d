// GET /checkout/{checkoutElementId}: the hosted checkout page, for buyers (no API keys).
import { Response } from '@whatwg-node/server';
import type { EndpointRequest } from '../http/endpoint.js';
import { renderCheckoutPage } from './page.js';

export async function serveCheckoutPage({ prisma, params, url, processor }: EndpointRequest): Promise<Response> {
  const { status, html, headers } = await renderCheckoutPage(prisma, params.checkoutElementId!, url.searchParams, processor.capabilities.methods, processor.name);
  return new Response(html, { status, headers: { ...headers, 'content-type': 'text/html; charset=utf-8' } });
}
