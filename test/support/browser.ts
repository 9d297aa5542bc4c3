import { existsSync } from 'node:fs';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

/** Debian's Chromium (or `CHROMIUM_PATH`): the browser the UI tests drive; puppeteer-core downloads none. */
export const CHROMIUM: string | undefined =
  process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((file) => existsSync(file));

/** Why the UI tests cannot run here, when no browser is found. */
export const NO_CHROMIUM = "no Chromium found (install Debian's chromium package or set CHROMIUM_PATH)";

/** Starts headless Chromium for a UI test. */
export async function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM!,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Where a UI test's screenshots go: `RP_UI_SCREENSHOTS` (the README's images: `docs/ui`), else a temporary folder. */
export async function screenshotFolder(): Promise<string> {
  const folder = process.env.RP_UI_SCREENSHOTS ? path.resolve(process.env.RP_UI_SCREENSHOTS) : await mkdtemp(path.join(tmpdir(), 'rp-ui-'));
  await mkdir(folder, { recursive: true });
  return folder;
}

/** What a UI block's tests use: the block's headless Chromium and the folder its screenshots go to. */
export interface BrowserSession {
  readonly browser: Browser;
  readonly shots: string;
}

/**
 * A block of UI tests sharing one headless Chromium (launched before the block, closed after it) and one
 * screenshot folder; `body` reads both through `ui()` inside its tests. Without Chromium, or when
 * `options.missing` names something else the block needs, the block is skipped with the reason in its
 * title; under CI that is an error instead.
 */
export function describeInBrowser(title: string, options: { missing?: string }, body: (ui: () => BrowserSession) => void): void {
  const missing = CHROMIUM ? options.missing : NO_CHROMIUM;
  if (missing && process.env.CI) throw new Error(`CI runs "${title}" in a browser: ${missing}`);
  (missing ? describe.skip : describe)(`${title}${missing ? ` (skipped: ${missing})` : ''}`, () => {
    let session: BrowserSession | undefined;
    beforeAll(async () => {
      const shots = await screenshotFolder();
      session = { shots, browser: await launchBrowser() };
    });
    afterAll(async () => session?.browser.close());
    body(() => {
      if (!session) throw new Error('The browser is only available inside a test of the block');
      return session;
    });
  });
}
