/**
 * Headless Chromium for the dashboard's browser tests, driven by playwright-core. Playwright's own browser download
 * cannot run here, so the tests use a system browser: `CHROME_PATH`, Debian's `/usr/bin/chromium`, or Chrome. When
 * none is there and we are root with apt-get, Debian's `chromium` is installed (once); otherwise one line says what to
 * install.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { BrowserContext } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable', '/opt/google/chrome/chrome'];

function firstExisting(): string | undefined {
  const fromEnv = process.env.CHROME_PATH;
  if (fromEnv) {
    if (!fs.existsSync(fromEnv)) throw new Error(`CHROME_PATH=${fromEnv}: no such file`);
    return fromEnv;
  }
  return CANDIDATES.find((p) => fs.existsSync(p));
}

function canApt(): boolean {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return false;
  try {
    execFileSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The browser executable, installing Debian's chromium when it is missing and we may. */
export function findChromium(): string {
  const found = firstExisting();
  if (found) return found;
  if (canApt()) {
    execFileSync('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium'], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 15 * 60_000 });
    const installed = firstExisting();
    if (installed) return installed;
  }
  throw new Error('No Chromium found: install Debian\'s chromium (apt-get install chromium) or set CHROME_PATH to a Chrome/Chromium binary');
}

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A fresh browser with an empty user-data dir (removed on close). */
export async function launchBrowser(viewport = { width: 1400, height: 900 }): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: findChromium(),
    args: CHROMIUM_ARGS,
    headless: true,
    viewport,
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Where the browser tests put their screenshots (gitignored). */
export function screenshotPath(name: string): string {
  const dir = path.resolve(__dirname, '../../test-artifacts');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `${name}.png`);
}
