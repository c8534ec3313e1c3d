import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { missingProductionSettings } from '../src/production-settings.js';
import { newWorkspace } from './support/api.js';
import { restClient } from './support/client.js';
import { ok } from './support/responses.js';
import { httpOnlyEnv, runProcess, startServerProcess } from './support/processes.js';

// NODE_ENV=production refuses to start without what development generates (secrets into
// DATA_DIR) or derives (link addresses from the request), and without a processor chosen on
// purpose with its keys: each missing setting by name, with how to set it.

const SECRET = 'x'.repeat(32);
const COMPLETE = {
  NODE_ENV: 'production',
  LICENSE_KEY_SECRET: SECRET,
  DOWNLOAD_URL_SECRET: SECRET,
  CURSOR_SECRET: SECRET,
  PORTAL_SECRET: SECRET,
  PUBLIC_BASE_URL: 'https://api.example.com',
  PORTAL_BASE_URL: 'https://portal.example.com',
  PAYMENT_PROCESSOR: 'sandbox',
};
const without = (...names: (keyof typeof COMPLETE | string)[]) => Object.fromEntries(Object.entries(COMPLETE).filter(([name]) => !names.includes(name)));

describe('the settings production mode needs', () => {
  test('none outside production; nothing missing with every one set', () => {
    expect(missingProductionSettings({})).toEqual([]);
    expect(missingProductionSettings({ NODE_ENV: 'development' })).toEqual([]);
    expect(missingProductionSettings(COMPLETE)).toEqual([]);
  });

  test.each([
    ['LICENSE_KEY_SECRET', /^LICENSE_KEY_SECRET \(encrypts license keys at rest\): set it to a random value of at least 32 characters \(e\.g\. `openssl rand -base64 32`\).*generates no secret into DATA_DIR$/],
    ['DOWNLOAD_URL_SECRET', /^DOWNLOAD_URL_SECRET \(signs download URLs\): set it to a random value of at least 32 characters/],
    ['CURSOR_SECRET', /^CURSOR_SECRET \(signs the subscriptions list's cursors\): set it to a random value of at least 32 characters/],
    ['PORTAL_SECRET', /^PORTAL_SECRET \(signs the buyer portal's forms \(CSRF tokens\)\): set it to a random value of at least 32 characters/],
    ['PUBLIC_BASE_URL', /^PUBLIC_BASE_URL \(where download URLs, payment-method pages and, unless PORTAL_BASE_URL says otherwise, the buyer portal's links point\): set it to the public address .*, e\.g\. https:\/\/api\.example\.com$/],
    ['PAYMENT_PROCESSOR', /^PAYMENT_PROCESSOR: set it to stripe \(with its keys\), or to sandbox to run on the simulated processor, which moves no money, on purpose$/],
  ])('without %s', (name, message) => {
    expect(missingProductionSettings(without(name))).toEqual([expect.stringMatching(message)]);
  });

  test('Stripe without its keys: each key by name', () => {
    const stripe = { ...COMPLETE, PAYMENT_PROCESSOR: 'stripe' };
    expect(missingProductionSettings(stripe)).toEqual([
      expect.stringMatching(/^STRIPE_SECRET_KEY \(sk_live_… or sk_test_…, for the calls to Stripe\): copy it from the Stripe Dashboard/),
      expect.stringMatching(/^STRIPE_WEBHOOK_SECRET \(whsec_…, the signing secret of the webhook endpoint Stripe posts to\)/),
      expect.stringMatching(/^STRIPE_PUBLISHABLE_KEY \(pk_live_… or pk_test_…, for Stripe\.js/),
    ]);
    const keys = { STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc', STRIPE_PUBLISHABLE_KEY: 'pk_test_abc' };
    expect(missingProductionSettings({ ...stripe, ...keys })).toEqual([]);
  });
});

describe('a production start', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'commerce-production-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  // Only the variables the test names: none of the suite's settings leak into the refusal.
  const bare = { DATA_DIR: '', LICENSE_KEY_SECRET: '', DOWNLOAD_URL_SECRET: '', CURSOR_SECRET: '', PORTAL_SECRET: '', PUBLIC_BASE_URL: '', PORTAL_BASE_URL: '', PAYMENT_PROCESSOR: '' };

  test.each([['dist/main.js'], ['dist/worker-main.js']])('%s refuses with every missing setting listed, before it touches DATA_DIR', async (entry) => {
    const { code, stderr } = await runProcess(process.execPath, [entry], { ...bare, NODE_ENV: 'production', DATA_DIR: dataDir, PAYMENT_PROCESSOR: 'stripe' });
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines[0]).toBe('NODE_ENV=production needs these settings; the process does not start without them:');
    expect(lines.slice(1).map((line) => /^ {2}- (\w+)/.exec(line)?.[1])).toEqual([
      'LICENSE_KEY_SECRET',
      'DOWNLOAD_URL_SECRET',
      'CURSOR_SECRET',
      'PORTAL_SECRET',
      'PUBLIC_BASE_URL',
      'STRIPE_SECRET_KEY',
      'STRIPE_WEBHOOK_SECRET',
      'STRIPE_PUBLISHABLE_KEY',
    ]);
    expect(await readdir(dataDir)).toEqual([]);
  }, 60_000);

  test('with every setting it serves on HOST=:: (no secret written into DATA_DIR), and its links use the configured addresses', async () => {
    const server = await startServerProcess({ ...httpOnlyEnv(), ...COMPLETE, DATABASE_URL: process.env.DATABASE_URL!, DATA_DIR: dataDir, HOST: '::' }, 120_000);
    try {
      expect(server.url).toMatch(/^http:\/\/\[::\]:\d+$/);
      const ws = await newWorkspace('Production links');
      const client = restClient(ws, { write: false }, server.url);
      const { url } = await ok(client.GET('/v0/portal/url', { params: { query: { type: 'orders-list' } } }));
      expect(url).toBe(`https://portal.example.com/${ws.workspaceId}/orders`);
      expect(await readdir(dataDir)).toEqual([]);
    } finally {
      await server.stop();
    }
  }, 180_000);
});
