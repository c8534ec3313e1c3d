// The sign-in pages: the email form, "check your email", the emailed link's page (a button that
// signs in: a mail scanner that opens the link uses nothing up), and the link's refusals.
import { escapeHtml } from '../domain-calls.js';
import type { PortalWorkspace } from '../sessions.js';
import { csrfField, portalPage, portalPath, type PortalPage } from './layout.js';
import { messagePage } from './messages.js';

const merchantOf = (workspace: PortalWorkspace) => workspace.name.trim() || 'this seller';

export function signInPage(workspace: PortalWorkspace, form: { csrf: string; next: string | null; notice?: string | null }, status = 200): PortalPage {
  return portalPage(
    status,
    { workspace, title: 'Sign in', notice: form.notice ? { kind: 'info', text: form.notice } : null },
    `<div class="card">
<h1>Your orders and subscriptions</h1>
<p>Enter the email address you bought with at ${escapeHtml(merchantOf(workspace))}. We will email you a link that signs you in.</p>
<form method="post" action="${portalPath(workspace.id, 'sign-in')}" id="sign-in-form">
${csrfField(form.csrf)}
${form.next ? `<input type="hidden" name="next" value="${escapeHtml(form.next)}">` : ''}
<label for="email">Email address</label>
<input id="email" name="email" type="email" autocomplete="email" maxlength="254" required>
<div class="actions"><button type="submit" class="primary" id="send-link">Email me a sign-in link</button></div>
</form>
</div>`,
  );
}

export const checkEmailPage = (workspace: PortalWorkspace, email: string) =>
  portalPage(
    200,
    { workspace, title: 'Check your email' },
    `<div class="card" id="check-email" role="status">
<h1>Check your email</h1>
<p>If ${escapeHtml(email)} has purchases at ${escapeHtml(merchantOf(workspace))}, a sign-in link is on its way to it. The link works once, within 15 minutes.</p>
<p class="muted">Nothing arrived? Check the spam folder, or <a href="${portalPath(workspace.id, 'sign-in')}">ask for another link</a>.</p>
</div>`,
  );

/** The emailed link's page: one button, so opening the link (a mail scanner does) signs nobody in. */
export const confirmSignInPage = (workspace: PortalWorkspace, token: string, csrf: string, livemode: boolean) =>
  portalPage(
    200,
    { workspace, title: 'Sign in', testMode: !livemode },
    `<div class="card">
<h1>Sign in to ${escapeHtml(merchantOf(workspace))}</h1>
<p>Continue to see your orders and subscriptions.</p>
<form method="post" action="${portalPath(workspace.id, `sign-in/${token}`)}">
${csrfField(csrf)}
<div class="actions"><button type="submit" class="primary" id="confirm-sign-in">Sign in</button></div>
</form>
</div>`,
  );

const REFUSALS = {
  unknown: ['This sign-in link is not valid', 'It may be mistyped or incomplete. Ask for a new one.'],
  expired: ['This sign-in link has expired', 'Sign-in links work for 15 minutes. Ask for a new one.'],
  used: ['This sign-in link was used already', 'Each link signs in once. Ask for a new one.'],
} as const;

export const signInLinkRefusedPage = (workspace: PortalWorkspace, reason: keyof typeof REFUSALS) =>
  messagePage(reason === 'unknown' ? 404 : 410, workspace, null, {
    id: `sign-in-link-${reason}`,
    title: REFUSALS[reason][0],
    text: REFUSALS[reason][1],
    back: { href: portalPath(workspace.id, 'sign-in'), text: 'Email me a new sign-in link' },
  });
