import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { DEFAULT_CONSOLE_DIR } from '../../http/src/console';
import { type StartOptions, startFathom, type TestFathom } from '@fathom/http/test';

/** Set to write each page's screenshot into docs/console/ (the images docs/console.md shows). */
export const SCREENSHOTS_ENV = 'FATHOM_CONSOLE_SCREENSHOTS';
const SCREENSHOT_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../docs/console');

/**
 * Headless Chromium from the npm package @sparticuz/chromium (its binary ships inside the package; no
 * download at install time), in a fresh profile. The background-networking flags keep Chromium from
 * calling home, which a closed network refuses.
 */
export async function launchBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const sparticuz = (await import('@sparticuz/chromium')).default;
  const executablePath = await sparticuz.executablePath();
  const profile = mkdtempSync(join(tmpdir(), 'fathom-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: 1280, height: 800 },
    // Under the C locale of a CI container this Chromium reports `en-US@posix`, which Intl refuses: a
    // browser as users run it reports a real language tag.
    locale: 'en-US',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Fathom on 127.0.0.1 serving the built console (the tests need `npm install`'s build of it). */
export async function startConsoleServer(options: StartOptions = {}): Promise<TestFathom> {
  if (!existsSync(join(DEFAULT_CONSOLE_DIR, 'index.html'))) {
    throw new Error(`The console is not built (${DEFAULT_CONSOLE_DIR}). Run npm install, or npm run build -w @fathom/console.`);
  }
  return startFathom(options);
}

/**
 * A page that records Content-Security-Policy violations and uncaught errors, so a test can assert the
 * console runs under its strict policy.
 */
export async function openPage(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { page, problems };
}

export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(`${url}/console/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Pages' }).waitFor();
}

/** Saves a screenshot for the docs when FATHOM_CONSOLE_SCREENSHOTS is set (and always returns the PNG). */
export async function screenshot(page: Page, name: string): Promise<Buffer> {
  const png = await page.screenshot({ fullPage: false });
  if (process.env[SCREENSHOTS_ENV]) {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(SCREENSHOT_DIR, `${name}.png`), png);
  }
  return png;
}

/** Every text and form value on the page: what a user (or a screen reader) could get out of it. */
export async function pageText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const values = [...document.querySelectorAll('input, textarea, select')].map((element) => (element as HTMLInputElement).value);
    return `${document.documentElement.outerHTML}\n${values.join('\n')}`;
  });
}
