// GET /payment-method/{subscriptionId}/{sessionToken}: the hosted payment-method page, for buyers (no API keys).
import { Response } from '@whatwg-node/server';
import type { EndpointRequest } from '../http/endpoint.js';
import { renderPaymentMethodPage } from './page.js';

export async function servePaymentMethodPage({ prisma, params }: EndpointRequest): Promise<Response> {
  const { status, html, headers } = await renderPaymentMethodPage(prisma, params.subscriptionId!, params.sessionToken!, new Date());
  // A copy: the response adds its content-length to the headers it is given.
  return new Response(html, { status, headers: { ...headers } });
}
