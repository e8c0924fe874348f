import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../lib/api/endpoints.js';
import { useOfflineService } from '../e2e/offline-server.js';
import { sampleRegistration } from '../helpers.js';

// The docs page in a real headless Chromium (Debian's, which .ci/run installs).
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const service = useOfflineService();
let browser: Browser;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: apt-get install chromium`).toBe(true);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 60_000);

afterAll(() => browser?.close());

describe('http://localhost:3000/docs', () => {
  it('renders every operation and registers a user from the page', async () => {
    const page = await browser.newPage();
    await page.goto(`${service.server.baseUrl}/docs`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
    const paths = await page.locator('.opblock-summary-path').allInnerTexts();
    expect(paths.map((path) => path.replace(/\u200b/g, '').trim()).sort()).toEqual(endpoints.map((endpoint) => endpoint.path).sort());

    const operation = page.locator('#operations-auth-registerUser');
    await operation.locator('.opblock-summary').click();
    await operation.locator('tr[data-param-name="CompanyID"] input').fill(service.company.company_id);
    await operation.locator('textarea.body-param__text').fill(JSON.stringify(sampleRegistration(), null, 2));
    await operation.locator('button.execute').click();

    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await expect.poll(() => status.innerText(), { timeout: 30_000 }).toContain('200');
    const body = await operation.locator('.live-responses-table .response-col_description .microlight').first().innerText();
    expect(JSON.parse(body)).toMatchObject({ success: 1, error: [], data: { token: { type: 'Token' } } });
    await page.screenshot({ path: `${process.env.TMPDIR ?? '/tmp'}/wallet-docs-page.png`, fullPage: false });
  }, 90_000);
});
