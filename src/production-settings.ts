// Production mode (NODE_ENV=production) starts only with what development generates or derives
// for convenience: the secrets (generated into DATA_DIR, next to the embedded database's files),
// the public addresses of the links the service hands out (derived from the request), and a
// payment processor chosen on purpose with its keys. (A malformed value of any setting stops every
// mode's start where it is read.) Every process (API, worker) checks the same list before it
// connects to anything, and a refusal names each missing setting and how to set it.
const SECRET_HOW = 'a random value of at least 32 characters (e.g. `openssl rand -base64 32`), the same in every process, kept with the database backups';

const SECRETS = [
  ['LICENSE_KEY_SECRET', 'encrypts license keys at rest'],
  ['DOWNLOAD_URL_SECRET', 'signs download URLs'],
  ['CURSOR_SECRET', "signs the subscriptions list's cursors"],
  ['PORTAL_SECRET', "signs the buyer portal's forms (CSRF tokens)"],
] as const;

const STRIPE_KEYS = [
  ['STRIPE_SECRET_KEY', 'sk_live_… or sk_test_…, for the calls to Stripe'],
  ['STRIPE_WEBHOOK_SECRET', "whsec_…, the signing secret of the webhook endpoint Stripe posts to"],
  ['STRIPE_PUBLISHABLE_KEY', 'pk_live_… or pk_test_…, for Stripe.js on the hosted checkout and payment-method pages'],
] as const;

/** What NODE_ENV=production lacks, one line per setting: its name, what it is for and how to set it. */
export function missingProductionSettings(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.NODE_ENV !== 'production') return [];
  const missing: string[] = [];
  for (const [name, purpose] of SECRETS) {
    if (!env[name]) missing.push(`${name} (${purpose}): set it to ${SECRET_HOW}; production mode generates no secret into DATA_DIR`);
  }
  if (!env.PUBLIC_BASE_URL?.trim()) {
    missing.push('PUBLIC_BASE_URL (where download URLs, payment-method pages and, unless PORTAL_BASE_URL says otherwise, the buyer portal\'s links point): set it to the public address buyers reach this service at, e.g. https://api.example.com');
  }
  if (!env.PAYMENT_PROCESSOR) {
    missing.push('PAYMENT_PROCESSOR: set it to stripe (with its keys), or to sandbox to run on the simulated processor, which moves no money, on purpose');
  } else if (env.PAYMENT_PROCESSOR === 'stripe') {
    for (const [name, purpose] of STRIPE_KEYS) if (!env[name]) missing.push(`${name} (${purpose}): copy it from the Stripe Dashboard (Developers)`);
  }
  return missing;
}

/** Stops the process, before it connects to anything, when production mode lacks a setting. */
export function refuseIncompleteProduction(env: NodeJS.ProcessEnv = process.env): void {
  const missing = missingProductionSettings(env);
  if (missing.length === 0) return;
  console.error(['NODE_ENV=production needs these settings; the process does not start without them:', ...missing.map((line) => `  - ${line}`)].join('\n'));
  process.exit(1);
}
