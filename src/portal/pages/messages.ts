// Pages that say why nothing else is shown: an unknown or offline workspace, the portal turned
// off, a record that is not the buyer's, a refused form, a rate limit, a refusal of a service.
import { escapeHtml } from '../domain-calls.js';
import type { Buyer, PortalWorkspace } from '../sessions.js';
import { portalPage, portalPath, type PortalPage } from './layout.js';

/** A page of one message, with a way on. */
export function messagePage(status: number, workspace: PortalWorkspace, buyer: Buyer | null, message: { id: string; title: string; text: string; back?: { href: string; text: string } }): PortalPage {
  const back = message.back ?? (buyer ? { href: portalPath(workspace.id, 'orders'), text: 'Back to your orders' } : null);
  return portalPage(
    status,
    { workspace, buyer, title: message.title },
    `<div class="card" id="${message.id}">
<h1>${escapeHtml(message.title)}</h1>
<p>${escapeHtml(message.text)}</p>
${back ? `<p><a href="${escapeHtml(back.href)}">${escapeHtml(back.text)}</a></p>` : ''}
</div>`,
  );
}

/** An unknown or offline workspace: nothing of it is shown. */
const UNKNOWN_WORKSPACE: PortalWorkspace = {
  id: '', name: 'Customer portal', testMode: false, portalEnabled: true, customSubscriptionManagementUrl: null, brandColor: null, accentColor: null, portalPauseEnabled: false, portalSwitchOfferIds: null,
};

export const unknownPortalPage = () =>
  messagePage(404, UNKNOWN_WORKSPACE, null, { id: 'not-found', title: 'This page does not exist', text: 'The link does not lead to a customer portal: it may be mistyped, or the seller no longer offers one.' });

export const disabledPage = (workspace: PortalWorkspace) =>
  messagePage(403, workspace, null, {
    id: 'portal-disabled',
    title: 'The customer portal is turned off',
    text: `${workspace.name.trim() || 'This seller'} does not offer a customer portal at the moment. Contact the seller about your orders and subscriptions.`,
  });

export const notFoundPage = (workspace: PortalWorkspace, buyer: Buyer | null) =>
  messagePage(404, workspace, buyer, { id: 'not-found', title: 'Not found', text: 'There is nothing of yours at this address: check the link, or find it in your orders.' });

export const csrfRefusedPage = (workspace: PortalWorkspace, buyer: Buyer | null) =>
  messagePage(403, workspace, buyer, {
    id: 'csrf-refused',
    title: 'This form could not be accepted',
    text: 'It expired, or it was sent from another site. Go back, reload the page and try again.',
  });

export const rateLimitedPage = (workspace: PortalWorkspace, buyer: Buyer | null, retryAfter: number) => {
  const page = messagePage(429, workspace, buyer, { id: 'rate-limited', title: 'Too many requests', text: `Please wait ${retryAfter} seconds and try again.` });
  page.headers['retry-after'] = String(retryAfter);
  return page;
};

/** A service's refusal (its message is written for the caller and safe to show). */
export const refusedPage = (status: number, workspace: PortalWorkspace, buyer: Buyer | null, text: string, back: { href: string; text: string }) =>
  messagePage(status, workspace, buyer, { id: 'refused', title: 'That did not work', text, back });

export const methodNotAllowedPage = (workspace: PortalWorkspace, buyer: Buyer | null) =>
  messagePage(405, workspace, buyer, { id: 'method-not-allowed', title: 'Not here', text: 'This address does not take that kind of request.' });
