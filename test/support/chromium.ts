// Headless Chromium for the hosted pages' browser tests (Debian's `chromium` + playwright-core):
// a new, empty profile per launch.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];
export const BROWSER_TIMEOUT_MS = 180_000;

/** Chromium in a new, empty profile; a missing Chromium fails the test saying how to install it. */
export async function launchChromium(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: the hosted pages' browser tests need it. Install Debian's package ` +
        '(`apt-get update && apt-get install -y chromium`; .ci/run does this), or set CHROMIUM_PATH to a Chromium executable.',
    );
  }
  const userDataDir = await mkdtemp(path.join(os.tmpdir(), 'checkout-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

