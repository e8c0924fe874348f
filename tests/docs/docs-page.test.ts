import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../lib/api/endpoints.js';
import { JWKS_PATH, OPENID_CONFIGURATION_PATH } from '../../lib/sessions/discovery.js';
import { useOfflineService } from '../e2e/offline-server.js';
import { launchChromium, PAGE_TEST_TIMEOUT_MS, untimedPage } from '../harness/chromium.js';
import { sampleRegistration } from '../helpers.js';

// The docs page in a real headless Chromium (tests/harness/chromium.ts).

const service = useOfflineService();
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
}, 120_000);

afterAll(() => browser?.close());

describe('http://localhost:3000/docs', () => {
  it(
    'renders every operation and registers a user from the page',
    async () => {
      const page = await untimedPage(browser);
      await page.goto(`${service.server.baseUrl}/docs`);
      await page.waitForSelector('.opblock-summary-path');
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
      await expect.poll(() => status.textContent(), { timeout: PAGE_TEST_TIMEOUT_MS }).toContain('200');
      const body = await operation.locator('.live-responses-table .response-col_description .microlight').first().textContent();
      expect(JSON.parse(body ?? '')).toMatchObject({ success: 1, error: [], data: { token: { type: 'Token' } } });
      await page.screenshot({ path: join(tmpdir(), 'wallet-docs-page.png'), fullPage: false });
    },
    PAGE_TEST_TIMEOUT_MS,
  );
});
