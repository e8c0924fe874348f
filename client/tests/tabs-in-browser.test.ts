import { build } from 'esbuild';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useOfflineService } from '../../tests/e2e/offline-server.js';
import { launchChromium, PAGE_TEST_TIMEOUT_MS } from '../../tests/harness/chromium.js';
import { newCompany, signUp } from '../../tests/helpers.js';
import type { WalletAuthClient } from '../src/index.js';

// Two tabs of one origin, each with a client over the same localStorage, in the packaged Chromium
// against the run's serverless-offline: their access token expired, both call at once, and one
// refresh serves both (shared-refresh.ts: a Web Lock, or a lock over a BroadcastChannel). The first
// refresh is held at the network until both tabs have read the expired session, so a tab that did
// not wait for the other would send a refresh of its own: the test without either lock sees two.

const service = useOfflineService();
let browser: Browser;
let script = '';

beforeAll(async () => {
  browser = await launchChromium();
  // The client as a browser app's bundler makes it, on the page's window.
  const bundled = await build({
    stdin: {
      contents: "import { createWalletAuthClient } from './src/index.ts'; Object.assign(globalThis, { createWalletAuthClient });",
      resolveDir: `${import.meta.dirname}/..`,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
  });
  script = bundled.outputFiles[0]?.text ?? '';
}, 120_000);

afterAll(() => browser?.close());

/** What a tab runs: a client over localStorage that tells the test each time it reads the session. */
const TAB_SCRIPT = `
  const storage = {
    get: (key) => { globalThis.sessionRead(); return localStorage.getItem(key); },
    set: (key, value) => localStorage.setItem(key, value),
    remove: (key) => localStorage.removeItem(key),
  };
  globalThis.client = (companyId) => createWalletAuthClient({ baseUrl: location.origin, companyId, storage });
`;

/** Browser APIs a tab goes without: as a browser that lacks them. */
type Without = ('locks' | 'BroadcastChannel')[];

/**
 * A context whose tabs open a page of the service's origin holding the client; the first refresh
 * request waits until every tab has read the session. Answers the context and the refreshes sent.
 */
async function tabsContext(without: Without): Promise<{ context: BrowserContext; refreshes: string[]; open: () => Promise<Page> }> {
  const context = await browser.newContext();
  context.setDefaultTimeout(0);
  const origin = service.server.baseUrl;
  const readers = new Set<Page>();
  const refreshes: string[] = [];
  let tabs = 0;
  await context.exposeBinding('sessionRead', ({ page }) => void readers.add(page));
  if (without.includes('locks'))
    await context.addInitScript("Object.defineProperty(Navigator.prototype, 'locks', { get: () => undefined })");
  if (without.includes('BroadcastChannel')) await context.addInitScript('delete globalThis.BroadcastChannel');
  await context.route(`${origin}/client-tabs/**`, (route) =>
    route.request().url().endsWith('.js')
      ? route.fulfill({ contentType: 'text/javascript', body: `${script}\n${TAB_SCRIPT}` })
      : route.fulfill({
          contentType: 'text/html',
          body: '<!doctype html><title>tab</title><script type="module" src="/client-tabs/client.js"></script>',
        }),
  );
  await context.route(`${origin}/wallet/v3/auth/token/refresh`, async (route) => {
    refreshes.push(route.request().postData() ?? '');
    while (readers.size < tabs) await new Promise((turn) => setTimeout(turn, 10));
    await route.continue();
  });
  const open = async () => {
    tabs += 1;
    const page = await context.newPage();
    await page.goto(`${origin}/client-tabs/index.html`);
    await page.waitForFunction('typeof globalThis.client === "function"');
    return page;
  };
  return { context, refreshes, open };
}

/** Two tabs over one session whose access token has expired; both fetch the profile at once. */
async function bothCallAtOnce(without: Without) {
  const company = await newCompany(service.server.local);
  const account = await signUp(service.server.local, company);
  const { refreshes, open } = await tabsContext(without);
  const [first, second] = [await open(), await open()];
  const session = {
    accessToken: account.authorization.replace(/^Token /, ''),
    refreshToken: account.refreshToken,
    expiresAt: Date.now() - 1000,
    userId: account.userId,
  };
  await first.evaluate(([key, value]) => localStorage.setItem(key, value), [
    `wallet-auth:${company.company_id}:session`,
    JSON.stringify(session),
  ] as const);
  const profile = (page: Page) =>
    page.evaluate(async (companyId) => {
      const tab = globalThis as unknown as { client: (companyId: string) => WalletAuthClient };
      return (await tab.client(companyId).account.profile()).user.user_id;
    }, company.company_id);
  const answered = await Promise.all([profile(first), profile(second)]);
  const kept = await second.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? '{}'), `wallet-auth:${company.company_id}:session`);
  const has = await first.evaluate(() => ({ locks: Boolean(navigator.locks), BroadcastChannel: typeof BroadcastChannel === 'function' }));
  return { account, answered, refreshes, kept, has };
}

describe('two tabs over one storage', () => {
  it(
    'share one refresh under a Web Lock: both calls answered, one new session kept',
    async () => {
      const { account, answered, refreshes, kept, has } = await bothCallAtOnce([]);
      expect(has.locks).toBe(true);
      expect(answered).toEqual([account.userId, account.userId]);
      expect(refreshes).toHaveLength(1);
      expect(kept.refreshToken).not.toBe(account.refreshToken);
      expect(kept.expiresAt).toBeGreaterThan(Date.now());
    },
    PAGE_TEST_TIMEOUT_MS,
  );

  it(
    'share one refresh under a lock over a BroadcastChannel where there are no Web Locks',
    async () => {
      const { account, answered, refreshes, has } = await bothCallAtOnce(['locks']);
      expect(has).toEqual({ locks: false, BroadcastChannel: true });
      expect(answered).toEqual([account.userId, account.userId]);
      expect(refreshes).toHaveLength(1);
    },
    PAGE_TEST_TIMEOUT_MS,
  );

  it(
    'each refresh where there is neither (the test sees two tabs that do not wait for each other)',
    async () => {
      const { account, answered, refreshes, has } = await bothCallAtOnce(['locks', 'BroadcastChannel']);
      expect(has).toEqual({ locks: false, BroadcastChannel: false });
      // Both within the 10 s grace of contract 3.12 (amended): both succeed, with one successor.
      expect(answered).toEqual([account.userId, account.userId]);
      expect(refreshes).toHaveLength(2);
    },
    PAGE_TEST_TIMEOUT_MS,
  );
});
