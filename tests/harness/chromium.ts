import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import sparticuzChromium from '@sparticuz/chromium';
import { type Browser, chromium, type Page } from 'playwright-core';

// A real headless Chromium for the page tests (the docs page, the console), from the npm registry
// (@sparticuz/chromium), so a machine with Node alone runs them; CHROMIUM_PATH points at another
// Chromium instead.

const root = resolve(import.meta.dirname, '../..');

/**
 * Unpacks the package's Chromium into .chromium/<package version>/ and returns the path of the
 * executable. The package unpacks into the system temporary folder, and reuses whatever Chromium
 * it finds there, of any version: so it runs in a child process whose TMPDIR is a folder of its own.
 */
function chromiumFromNpm(): string {
  const { version } = JSON.parse(readFileSync(resolve(root, 'node_modules/@sparticuz/chromium/package.json'), 'utf8')) as {
    version: string;
  };
  const folder = resolve(root, '.chromium', version);
  mkdirSync(folder, { recursive: true });
  const unpack = "import chromium from '@sparticuz/chromium'; process.stdout.write(await chromium.executablePath());";
  return execFileSync(process.execPath, ['--input-type=module', '-e', unpack], {
    cwd: root,
    env: { ...process.env, TMPDIR: folder },
    encoding: 'utf8',
  });
}

/**
 * A page test's one bound on wall time. Its steps wait for what they wait on with no time limit of
 * their own (Playwright's default is 30 s a step, which a loaded 2-core machine overran while the
 * service loaded a function's bundle): the test as a whole fails past this.
 */
export const PAGE_TEST_TIMEOUT_MS = 300_000;

/** A page of a new browser context whose steps wait with no time limit of their own (PAGE_TEST_TIMEOUT_MS bounds the test). */
export async function untimedPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext();
  context.setDefaultTimeout(0);
  return context.newPage();
}

/** A headless Chromium: CHROMIUM_PATH's, else the npm package's (unpacked on first use). */
export function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH || chromiumFromNpm();
  return chromium.launch({
    executablePath,
    args: process.env.CHROMIUM_PATH
      ? [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ]
      : sparticuzChromium.args,
  });
}
