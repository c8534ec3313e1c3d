// Headless Chromium for the hosted pages' browser tests (Debian's `chromium` + playwright-core):
// a new, empty profile per launch.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

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


/** Fills the hosted pages' sandbox card fields (expiry in three years, CVC 123). */
export async function fillCard(page: Page, number: string) {
  await page.fill('#card-number', number);
  await page.selectOption('#card-exp-month', '12');
  await page.selectOption('#card-exp-year', String(new Date().getUTCFullYear() + 3));
  await page.fill('#card-cvc', '123');
}

/**
 * Clicks a hosted page's submit button (then `authentication`'s button of the sandbox's 3-D
 * Secure step, if given) and waits for #outcome to change while the button no longer says
 * `busyLabel`; returns the outcome's kind and text.
 */
export async function submitCard(page: Page, button: string, busyLabel: string, authentication?: 'authenticate' | 'fail-authentication') {
  const before = await page.evaluate(() => document.getElementById('outcome')!.textContent);
  await page.click(button);
  if (authentication) await page.click(`#sandbox-${authentication}`);
  await page.waitForFunction(
    ({ previous, button, busyLabel }) => {
      const outcome = document.getElementById('outcome')!;
      return !outcome.hidden && outcome.dataset.outcome && outcome.textContent !== previous && !document.querySelector(button)!.textContent!.startsWith(busyLabel);
    },
    { previous: before, button, busyLabel },
  );
  return page.evaluate(() => {
    const outcome = document.getElementById('outcome')!;
    return { kind: outcome.dataset.outcome!, text: outcome.textContent! };
  });
}
