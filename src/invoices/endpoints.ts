// GET /invoices/{token} (the document's HTML page) and GET /invoices/{token}/pdf: what a signed
// link opens, with no key. The stored rendering is served as it was issued. A tampered token is
// 403, an expired one 410, in the API's error envelope as download links are.
import { Response } from '@whatwg-node/server';
import { systemClock } from '../core/time.js';
import type { EndpointRequest, HttpEndpoint } from '../http/endpoint.js';
import { errorResponse, errorToResponse } from '../rest/envelope.js';
import { DOCUMENT_PATH, readDocumentToken } from './links.js';
import { documentById } from './service.js';

// The page has no script and its only style is inline; nothing may frame it, and the signed
// token in its address is not sent on as a Referer.
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'private, no-store',
};

async function serve({ params, prisma, requestId }: EndpointRequest, as: 'html' | 'pdf'): Promise<Response> {
  try {
    const grant = readDocumentToken(params.token!);
    if (!grant) return errorResponse(403, 'This invoice link is not valid (it was altered or never issued)');
    if (grant.expiresAt * 1000 <= systemClock().getTime()) return errorResponse(410, `This invoice link expired at ${new Date(grant.expiresAt * 1000).toISOString()}; ask the seller for a new one`);
    const document = await documentById(prisma, grant.documentId);
    if (!document) return errorResponse(404, 'This invoice no longer exists');
    if (as === 'html') return new Response(document.html, { headers: { ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8' } });
    return new Response(document.pdf, {
      headers: { ...PAGE_HEADERS, 'content-type': 'application/pdf', 'content-disposition': `inline; filename="${document.number}.pdf"`, 'content-length': String(document.pdf.byteLength) },
    });
  } catch (error) {
    return errorToResponse(error, requestId);
  }
}

export const endpoints: readonly HttpEndpoint[] = [
  { path: `${DOCUMENT_PATH}/:token`, methods: ['GET'], handle: (endpoint) => serve(endpoint, 'html') },
  { path: `${DOCUMENT_PATH}/:token/pdf`, methods: ['GET'], handle: (endpoint) => serve(endpoint, 'pdf') },
];
