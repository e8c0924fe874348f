import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sparticuzChromium from '@sparticuz/chromium';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../lib/api/endpoints.js';
import { JWKS_PATH, OPENID_CONFIGURATION_PATH } from '../../lib/sessions/discovery.js';
import { useOfflineService } from '../e2e/offline-server.js';
import { sampleRegistration } from '../helpers.js';

// The docs page in a real headless Chromium, from the npm registry (@sparticuz/chromium), so a
// machine with Node alone runs this test; CHROMIUM_PATH points at another Chromium instead.

/**
 * Unpacks the package's Chromium into .chromium/<package version>/ and returns the path of the
 * executable. The package unpacks into the system temporary folder, and reuses whatever Chromium
 * it finds there, of any version: so it runs in a child process whose TMPDIR is a folder of its own.
 */
function chromiumFromNpm(): string {
  const root = resolve(import.meta.dirname, '../..');
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

const service = useOfflineService();
let browser: Browser;

beforeAll(async () => {
  const executablePath = process.env.CHROMIUM_PATH || chromiumFromNpm();
  browser = await chromium.launch({
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
}, 120_000);

afterAll(() => browser?.close());

describe('http://localhost:3000/docs', () => {
  it('renders every operation and registers a user from the page', async () => {
    const page = await browser.newPage();
    await page.goto(`${service.server.baseUrl}/docs`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
    const paths = await page.locator('.opblock-summary-path').allInnerTexts();
    expect(paths.map((path) => path.replace(/\u200b/g, '').trim()).sort()).toEqual(
      [...Object.values(endpoints).map((endpoint) => endpoint.path), OPENID_CONFIGURATION_PATH, JWKS_PATH].sort(),
    );

    const operation = page.locator('#operations-auth-userRegister');
    await operation.locator('.opblock-summary').click();
    await operation.locator('tr[data-param-name="CompanyID"] input').fill(service.company.company_id);
    await operation.locator('textarea.body-param__text').fill(JSON.stringify(sampleRegistration(), null, 2));
    await operation.locator('button.execute').click();

    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await expect.poll(() => status.textContent(), { timeout: 30_000 }).toContain('200');
    const body = await operation.locator('.live-responses-table .response-col_description .microlight').first().textContent();
    expect(JSON.parse(body ?? '')).toMatchObject({ success: 1, error: [], data: { token: { type: 'Token' } } });
    await page.screenshot({ path: join(tmpdir(), 'wallet-docs-page.png'), fullPage: false });
  }, 90_000);
});
