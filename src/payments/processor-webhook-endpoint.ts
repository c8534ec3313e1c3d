// POST /processor-webhooks/{processor}: the processor's webhook ingress. Outside /v0 and without
// API keys: the processor's signature on the raw body is the authentication.
import { readRawBody } from '../http/body.js';
import type { EndpointRequest } from '../http/endpoint.js';
import { errorResponse, errorToResponse, successResponse } from '../rest/envelope.js';
import { handleProcessorEvents } from './processor-callbacks.js';
import { InvalidProcessorSignature } from './processors/processor.js';

/** The raw body (within MAX_BODY_BYTES) verified by parseWebhook, then the same handler as every processor event. */
export async function handleProcessorWebhook({ request, params, requestId, limits, prisma, temporal, processor }: EndpointRequest): Promise<Response> {
  const name = params.processor!;
  if (name !== processor.name) return errorResponse(404, `No processor ${JSON.stringify(name)} takes webhooks here; this service uses ${processor.name}`);
  try {
    const rawBody = Buffer.from(await readRawBody(request, limits));
    let events;
    try {
      events = await processor.parseWebhook(rawBody, Object.fromEntries(request.headers));
    } catch (error) {
      if (error instanceof InvalidProcessorSignature) return errorResponse(400, `The webhook is not verified: ${error.message}`);
      throw error;
    }
    await handleProcessorEvents(prisma, temporal, events);
    return successResponse({ received: events.length });
  } catch (error) {
    return errorToResponse(error, requestId);
  }
}
