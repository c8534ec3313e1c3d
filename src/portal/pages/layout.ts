// The portal's document frame: the workspace's name and colours in the header, the test-mode
// banner, the navigation and sign-out, a notice. Server-rendered, no script: every action is a
// form. The headers allow exactly the stylesheets written here (by hash), no script at all, forms
// posting to this service only, and no framing (a portal's buttons cancel subscriptions).
import { createHash } from 'node:crypto';

import { config } from '../../config.js';
import { escapeHtml } from '../domain-calls.js';
import type { Buyer, PortalWorkspace } from '../sessions.js';

export interface PortalPage {
  status: number;
  html: string;
  headers: Record<string, string>;
}

const CSS = `
*, *::before, *::after { box-sizing: border-box; }
:root { --brand: #1f2a44; --brand-text: #ffffff; --accent: #2450b2; --accent-text: #ffffff; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1b1b1b; background: #f4f5f7; }
a { color: #1d4ed8; }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, summary:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: #fff; padding: .5rem; z-index: 1; }
header.site { background: var(--brand); color: var(--brand-text); }
header.site .bar { max-width: 56rem; margin: 0 auto; padding: .9rem 1rem; display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1.5rem; }
header.site .merchant { font-weight: 700; font-size: 1.15rem; margin: 0; overflow-wrap: anywhere; }
header.site nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem 1rem; margin: 0; padding: 0; }
header.site nav a { color: var(--brand-text); text-decoration: none; padding: .25rem 0; }
header.site nav a[aria-current="page"] { text-decoration: underline; text-underline-offset: .3em; font-weight: 600; }
header.site form { margin: 0 0 0 auto; }
header.site .signout { background: transparent; color: var(--brand-text); border: 1px solid currentColor; }
main { max-width: 56rem; margin: 0 auto; padding: 1.25rem 1rem 3rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.15rem; margin: 0 0 .75rem; }
.card { background: #fff; border: 1px solid #d5d9df; border-radius: 8px; padding: 1rem 1.25rem; margin: 0 0 1rem; }
.test-banner { background: #fff4ce; border: 1px solid #a07d00; color: #3d3000; border-radius: 8px; padding: .75rem 1rem; margin: 0 0 1rem; }
.notice { border-radius: 8px; padding: .75rem 1rem; margin: 0 0 1rem; border: 1px solid; }
.notice.success { background: #e3f5e8; color: #0d4a1f; border-color: #3f8f55; }
.notice.error { background: #fde7e9; color: #7a1020; border-color: #c2414f; }
.notice.info { background: #e6effc; color: #12336b; border-color: #5d82c5; }
.muted { color: #4d5562; }
table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: .45rem .5rem .45rem 0; border-bottom: 1px solid #e3e6ea; vertical-align: top; }
thead th { font-size: .875rem; color: #4d5562; font-weight: 600; }
td.amount, th.amount { text-align: right; white-space: nowrap; padding-right: 0; }
tr.total th, tr.total td { font-weight: 700; border-bottom: 0; }
dl.facts { display: grid; grid-template-columns: minmax(8rem, max-content) 1fr; gap: .35rem 1rem; margin: 0; }
dl.facts dt { color: #4d5562; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.status { display: inline-block; padding: .05rem .5rem; border-radius: 999px; font-size: .875rem; font-weight: 600; background: #e8eaee; color: #1b1b1b; }
.status.good { background: #d9f2e0; color: #0d4a1f; }
.status.warn { background: #fff0c2; color: #4a3b00; }
.status.bad { background: #fde0e3; color: #7a1020; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-top: .75rem; }
.actions form { margin: 0; }
button, .button { display: inline-block; font: inherit; font-weight: 600; padding: .55rem 1rem; border-radius: 6px; border: 1px solid #8b94a3; background: #fff; color: #1b1b1b; cursor: pointer; text-decoration: none; }
button.primary, .button.primary { background: var(--accent); color: var(--accent-text); border-color: var(--accent); }
button.danger { background: #b42318; color: #fff; border-color: #b42318; }
label { display: block; font-weight: 600; margin: .5rem 0 .25rem; }
input[type=email], select { width: 100%; max-width: 28rem; font: inherit; padding: .5rem .6rem; border: 1px solid #7b8492; border-radius: 6px; background: #fff; }
fieldset { border: 0; padding: 0; margin: 0 0 .75rem; }
legend { font-weight: 600; margin-bottom: .25rem; }
.choice { display: flex; gap: .5rem; align-items: flex-start; margin: .35rem 0; font-weight: 400; }
.choice input { margin-top: .3rem; }
code.key { font: 15px/1.4 ui-monospace, monospace; background: #f0f2f5; padding: .15rem .4rem; border-radius: 4px; overflow-wrap: anywhere; }
ul.plain { list-style: none; margin: 0; padding: 0; }
ul.plain > li { padding: .5rem 0; border-bottom: 1px solid #e3e6ea; }
ul.plain > li:last-child { border-bottom: 0; }
.row-head { display: flex; flex-wrap: wrap; justify-content: space-between; gap: .25rem 1rem; }
@media (max-width: 36rem) {
  main { padding: 1rem .75rem 2rem; }
  .card { padding: .85rem .9rem; }
  table.responsive thead { display: none; }
  table.responsive tr { display: block; border-bottom: 1px solid #e3e6ea; padding: .35rem 0; }
  table.responsive td, table.responsive th { display: flex; justify-content: space-between; gap: 1rem; border: 0; padding: .15rem 0; text-align: right; }
  table.responsive td::before, table.responsive th::before { content: attr(data-label); color: #4d5562; font-weight: 400; text-align: left; }
  dl.facts { grid-template-columns: 1fr; gap: 0; }
  dl.facts dd { margin-bottom: .4rem; }
}
[hidden] { display: none !important; }
`;

/** WCAG relative luminance of #rrggbb. */
function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
}

/** White or near-black, whichever contrasts more with the colour: at least 4.5:1 for any colour. */
function textOn(hex: string): string {
  const l = luminance(hex);
  return (1.05) / (l + 0.05) >= (l + 0.05) / (luminance('#111111') + 0.05) ? '#ffffff' : '#111111';
}

/** The workspace's colours as custom properties (a stylesheet of its own, allowed by its hash). */
function themeCss(workspace: PortalWorkspace): string {
  // The settings take #rrggbb only; anything else in the column is not written into a stylesheet.
  const colour = (value: string | null) => (value && /^#[0-9a-f]{6}$/i.test(value) ? value : null);
  const brand = colour(workspace.brandColor);
  const accent = colour(workspace.accentColor);
  const rules = [brand ? `--brand: ${brand}; --brand-text: ${textOn(brand)};` : '', accent ? `--accent: ${accent}; --accent-text: ${textOn(accent)};` : ''].join(' ');
  return `:root { ${rules} }`;
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** Forms post here only; a download and a card update redirect to PUBLIC_BASE_URL when it is another origin. */
const formTargets = () => {
  const base = config.downloads.publicBaseUrl;
  return base ? `'self' ${new URL(base).origin}` : "'self'";
};

function portalHeaders(styles: readonly string[]): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': [
      "default-src 'none'",
      "script-src 'none'",
      `style-src ${styles.map(sha256).join(' ')}`,
      "img-src 'self' data:",
      `form-action ${formTargets()}`,
      "base-uri 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  };
}

/** The workspace's portal paths. */
export const portalPath = (workspaceId: string, path = '') => `/portal/${workspaceId}${path ? `/${path}` : ''}`;

/** A hidden CSRF field. */
export const csrfField = (csrf: string) => `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`;

export interface Frame {
  workspace: PortalWorkspace;
  title: string;
  /** The signed-in buyer (navigation and sign-out), or null on the sign-in pages. */
  buyer?: Buyer | null;
  /** Test-mode pages (a test-mode buyer, or a sign-in link to one) carry the banner. */
  testMode?: boolean;
  current?: 'orders' | 'subscriptions';
  notice?: { kind: 'success' | 'error' | 'info'; text: string } | null;
}

function navigation(frame: Frame, buyer: Buyer): string {
  const { workspace } = frame;
  // A workspace with its own subscription management sends buyers there.
  const subscriptions = workspace.customSubscriptionManagementUrl ?? portalPath(workspace.id, 'subscriptions');
  const link = (href: string, text: string, current: boolean) => `<li><a href="${escapeHtml(href)}"${current ? ' aria-current="page"' : ''}>${text}</a></li>`;
  return `<nav aria-label="Account"><ul>
${link(portalPath(workspace.id, 'orders'), 'Orders', frame.current === 'orders')}
${link(subscriptions, 'Subscriptions', frame.current === 'subscriptions')}
</ul></nav>
<form method="post" action="${portalPath(workspace.id, 'sign-out')}">${csrfField(buyer.csrf)}<button type="submit" class="signout" id="sign-out">Sign out</button></form>`;
}

/** A full page of the workspace's portal. */
export function portalPage(status: number, frame: Frame, body: string): PortalPage {
  const { workspace, buyer } = frame;
  const merchant = workspace.name.trim() || 'Customer portal';
  const theme = themeCss(workspace);
  const testMode = frame.testMode ?? (buyer ? !buyer.livemode : false);
  const notice = frame.notice ? `<div class="notice ${frame.notice.kind}" id="notice" role="${frame.notice.kind === 'error' ? 'alert' : 'status'}">${escapeHtml(frame.notice.text)}</div>` : '';
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${escapeHtml(`${frame.title} · ${merchant}`)}</title>
<style>${CSS}</style>
<style>${theme}</style>
</head>
<body>
<a class="skip" href="#content">Skip to content</a>
<header class="site"><div class="bar">
<p class="merchant" id="merchant">${escapeHtml(merchant)}</p>
${buyer ? navigation(frame, buyer) : ''}
</div></header>
<main id="content">
${testMode ? '<div class="test-banner" id="test-mode" role="note"><strong>Test mode.</strong> These are test purchases: no real money moves.</div>' : ''}
${notice}
${body}
</main>
</body>
</html>
`;
  return { status, html, headers: portalHeaders([CSS, theme]) };
}
