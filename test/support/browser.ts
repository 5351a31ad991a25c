import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Where screenshots of the browser tests go. */
export const ARTIFACTS = 'test-artifacts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Headless Chromium; a missing browser fails with the way to install it, never as a skipped test. */
export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}. Install it with: apt-get update && apt-get install -y chromium ` +
        '(.ci/run does this), or set CHROMIUM_PATH to a Chromium or Chrome binary (README "Tests").',
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
}
