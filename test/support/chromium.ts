// Headless Debian Chromium driven by playwright-core, for every browser test. `npm test` installs the
// package first when it is missing (scripts/ensure-chromium.sh); TONWATCH_CHROMIUM points elsewhere.
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.TONWATCH_CHROMIUM ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    timeout: 20_000,
  });
}
