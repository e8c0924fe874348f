// The console (API contract 3.14) in a real headless Chromium (tests/harness/chromium.ts) against
// the run's serverless-offline: signed in by code with the keyboard alone, a customer found and
// their sessions ended; a recovery started by one admin and approved by another, after a PIN
// sign-in on a remembered browser; no admin control for support; hostile names shown as text.
// Controls are found by their accessible names, as anyone's browser tests would.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_EVERY_MS } from '../../console/src/session-keeper.js';
import { companyKey, SESSION_PREFIX, userKey } from '../../lib/store/keys.js';
import { queryPartitionPrefix } from '../../lib/store/partition-query.js';
import { staffMember } from '../admin/staff.js';
import { otpLogin, PINS, pinLogin, signUpWithDevice } from '../devices/device-helpers.js';
import { useOfflineService } from '../e2e/offline-server.js';
import { launchChromium, PAGE_TEST_TIMEOUT_MS } from '../harness/chromium.js';
import { invoke, logIn, newEmployee, randomPhoneNumber, signUp } from '../helpers.js';
import {
  act,
  consolePage,
  employee,
  nextCode,
  openAccount,
  settleEmployeeDevices,
  signInByCode,
  signInStrongly,
  textsTo,
} from './console-browser.js';

const service = useOfflineService();
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
}, 120_000);

afterAll(() => browser?.close());

const STRICT_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** What a customer's token gets from the API now: 200 while its session lives, 401 once it ended. */
async function tokenAnswer(authorization: string): Promise<number> {
  const response = await fetch(`${service.server.baseUrl}/wallet/v3/reward_promotion/referral_program`, {
    headers: { CompanyID: service.company.company_id, Authorization: authorization },
  });
  return response.status;
}

/** Everything the page holds across a reload: never a token. */
const keptAcrossReload = (page: Page) =>
  page.evaluate<string>('JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } })');
/** An expression of the page, evaluated there. */
const inPage = <Value>(page: Page, expression: string) => page.evaluate<Value>(expression);

describe('the console in a browser', () => {
  it(
    'signs an employee in by code with the keyboard alone, finds a customer by phone, ends their sessions with a reason: the customer’s token is refused',
    async () => {
      const { server, company } = service;
      const agent = await employee(server, company, 'support');
      const customer = await signUp(server.local, company);
      expect(await tokenAnswer(customer.authorization)).toBe(200);
      const { page, problems } = await consolePage(browser, service.server);
      // How each API call with a token is authorized: its scheme, and whether a DPoP proof went with it.
      const authorized: string[] = [];
      let copied = '';
      page.on('request', (request) => {
        const { authorization, dpop } = request.headers();
        if (authorization) authorized.push(`${authorization.split(' ')[0]}${dpop ? ' with a proof' : ''}`);
        if (authorization) copied = authorization;
      });

      const answer = await page.goto(`${server.baseUrl}/console`);
      expect(answer?.headers()['content-security-policy']).toMatch(new RegExp(`^${STRICT_POLICY}`));
      expect(answer?.headers()).toMatchObject({
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
      });

      // Keyboard alone: the page puts the focus in Company ID; Tab past "Sign in with a passkey" (offered first) to the
      // dial code (+1 already) and the phone; Enter sends.
      await page.getByLabel('Company ID').waitFor();
      expect(await inPage(page, 'document.activeElement?.id')).toBe(await page.getByLabel('Company ID').getAttribute('id'));
      await page.keyboard.type(company.company_id);
      await page.keyboard.press('Tab');
      expect(await inPage(page, 'document.activeElement?.textContent')).toBe('Sign in with a passkey');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await page.keyboard.type(agent.phoneNumber);
      const before = textsTo(server, `+1${agent.phoneNumber}`);
      await page.keyboard.press('Enter');
      const code = await nextCode(server, `+1${agent.phoneNumber}`, before);
      // The focus moved to Login code; Enter signs in.
      await page.getByLabel('Login code').waitFor();
      await expect.poll(() => inPage(page, 'document.activeElement?.autocomplete')).toBe('one-time-code');
      await page.keyboard.type(code);
      // Tab to "Remember this browser", Space ticks it, Enter signs in.
      await page.keyboard.press('Tab');
      await page.keyboard.press('Space');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Find a user' }).waitFor();
      expect(await page.getByText('(support)').count()).toBe(1);
      // A code alone is no strong session: the page says so, and how to get one (contract 3.14, round 6).
      await page.getByLabel('Phone, email, user id or referral code').fill(`+1${customer.registration.phone_number}`);
      await page.getByLabel('Reason').fill('TICKET-101');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByText(/needs a strong sign-in, not a code alone.*Remember this browser.*Login PIN/).waitFor();
      // "Remember this browser" binds the session to the browser's key (DPoP, contract 3.17): every call proves it.
      expect(authorized.length).toBeGreaterThan(0);
      expect(new Set(authorized)).toEqual(new Set(['DPoP with a proof']));
      // A token copied off the page is worthless without the browser's key: with no proof, under either scheme, 401.
      const token = copied.split(' ')[1] ?? '';
      expect(await tokenAnswer(`DPoP ${token}`)).toBe(401);
      expect(await tokenAnswer(`Token ${token}`)).toBe(401);
      // The browser is remembered (its key settled as another admin would settle it): after a reload the
      // PIN alone signs in, strongly, with the keyboard too.
      await settleEmployeeDevices(server, company, agent);
      await page.reload();
      await page.getByLabel('Login PIN').waitFor();
      await page.keyboard.type(String(agent.registration.login_pin));
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Find a user' }).waitFor();

      await openAccount(page, `+1${customer.registration.phone_number}`, 'TICKET-101');
      expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe(
        `${customer.registration.first_name} ${customer.registration.last_name}`,
      );
      // Masked: the last four digits only.
      expect(await page.locator('.facts').first().textContent()).not.toContain(String(customer.registration.phone_number));
      expect(await act(page, 'End sessions', 'TICKET-101 lost phone')).toBe('1 session ended.');
      expect(await tokenAnswer(customer.authorization)).toBe(401);
      // The view read anew lists the action, by this agent.
      expect(await page.getByRole('table', { name: /latest 50/ }).textContent()).toContain('sessions_end');
      expect(await keptAcrossReload(page)).not.toMatch(/eyJ|token/i);
      // The one refusal: the search sent on the code sign-in's session.
      expect(problems.filter((problem) => !problem.includes('403 (Forbidden)'))).toEqual([]);
    },
    PAGE_TEST_TIMEOUT_MS,
  );

  it(
    'lets a second admin approve a recovery the first started, after the first signed in again with the PIN alone on a remembered browser',
    async () => {
      const { server, company } = service;
      const [first, second] = [await employee(server, company, 'admin'), await employee(server, company, 'admin')];
      const customer = await signUp(server.local, company);
      const customerPhone = `+1${customer.registration.phone_number}`;

      const one = await consolePage(browser, service.server);
      await signInByCode(one.page, server, company, first, { remember: true });
      await settleEmployeeDevices(server, company, first);
      // A reload forgets the session (memory only) and asks for the PIN alone: the device key stayed in IndexedDB.
      await one.page.reload();
      await one.page.getByLabel('Login PIN').waitFor();
      expect(await one.page.getByLabel('Company ID').count()).toBe(0);
      expect(await keptAcrossReload(one.page)).toBe(
        JSON.stringify({ local: { 'wallet-console:company-id': company.company_id }, session: {} }),
      );
      await one.page.getByLabel('Login PIN').fill(String(first.registration.login_pin));
      await one.page.getByRole('button', { name: 'Sign in with PIN' }).click();
      await one.page.getByRole('heading', { name: 'Find a user' }).waitFor();

      await openAccount(one.page, customerPhone, 'TICKET-202');
      const newNumber = randomPhoneNumber();
      const started = await act(one.page, 'Start recovery', 'TICKET-202 lost SIM and phone', async (dialog) => {
        await dialog.getByLabel('New phone number').fill(newNumber);
      });
      expect(started).toContain('awaits another admin');
      // The one who started it cannot approve it.
      expect(await one.page.getByRole('button', { name: 'Approve recovery' }).count()).toBe(0);
      expect(await one.page.getByText('another admin must approve it').count()).toBe(1);

      const two = await consolePage(browser, service.server);
      await signInStrongly(two.page, server, company, second);
      await openAccount(two.page, customerPhone, 'TICKET-202');
      expect(await two.page.getByRole('button', { name: 'Cancel recovery' }).count()).toBe(1);
      expect(await act(two.page, 'Approve recovery', 'TICKET-202 identity checked')).toContain('Recovery approved');
      const change = two.page.getByRole('region', { name: 'Pending phone change' });
      expect(await change.textContent()).toContain(`•••• ${newNumber.slice(-4)}`);
      expect(await change.textContent()).toMatch(/Awaiting approvalno/);

      // Employees and roles: the second admin gives a new employee the support role, and ends the first admin's sessions.
      const newcomer = await newEmployee(server.local, company);
      await two.page.getByRole('button', { name: 'Employees and roles' }).click();
      const findEmployee = async (key: string) => {
        await two.page.getByLabel('Employee’s phone, email or user id').fill(key);
        await two.page.getByLabel('Reason').fill('TICKET-202 staff');
        await two.page.getByRole('button', { name: 'Search', exact: true }).click();
      };
      await findEmployee(newcomer.userId);
      await two.page.getByLabel('New role', { exact: true }).selectOption('support');
      await two.page.getByRole('button', { name: 'Set role' }).click();
      await two.page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
      // Giving a role takes two admins: asked here, approved by the first admin under Approvals.
      await two.page.getByText(/^Role support asked: another admin approves it under Approvals/).waitFor();
      await one.page.getByRole('button', { name: 'Approvals' }).click();
      await one.page.getByLabel('Reason').fill('TICKET-202 review');
      await one.page.getByRole('button', { name: 'Show what awaits' }).click();
      const awaiting = one.page.getByRole('article', { name: 'Role awaiting approval' });
      expect(await awaiting.textContent()).toContain(newcomer.userId);
      await awaiting.getByRole('button', { name: 'Approve role' }).click();
      await one.page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
      await awaiting.waitFor({ state: 'detached' });
      const newcomerProfile = await invoke(server.local.handlers.userProfile, {
        method: 'GET',
        path: '/p',
        headers: { CompanyID: company.company_id, Authorization: newcomer.authorization },
      });
      expect(newcomerProfile.body.data.user.role).toBe('support');
      await findEmployee(`+1${first.phoneNumber}`);
      await two.page.getByRole('button', { name: 'Open account' }).click();
      // Two: the PIN sign-in's and the one the operator's registration began; the code sign-in's ended when its page reloaded.
      expect(await act(two.page, 'End sessions', 'TICKET-202 staff')).toBe('2 sessions ended.');
      // The first admin's page learns it at its next call: back to sign-in, saying why.
      await one.page.getByRole('button', { name: 'Find a user' }).click();
      await one.page.getByLabel('Phone, email, user id or referral code').fill(customerPhone);
      await one.page.getByRole('button', { name: 'Search', exact: true }).click();
      await one.page.getByText('Your session has ended: sign in again.').waitFor();
      expect(await one.page.getByRole('heading', { name: 'Sign in to the console' }).count()).toBe(1);
      expect(one.problems.filter((problem) => !problem.includes('401 (Unauthorized)'))).toEqual([]);
      expect(two.problems).toEqual([]);
    },
    PAGE_TEST_TIMEOUT_MS,
  );

  it(
    'finding 5: logs its session out when the page goes, whatever the access token’s age: kept fresh, the keepalive logout needs no refresh',
    async () => {
      const { server, company } = service;
      const agent = await employee(server, company, 'support');
      const { page, problems } = await consolePage(browser, service.server);
      // The page's clock is the test's: it moves the access token (15 minutes) to near its end at once.
      await page.clock.install();
      // The page's clock runs ahead of the service's: a bound call's proof is then refused once with a
      // nonce challenge (RFC 9449 section 8), which the client answers. Every 401 must be that.
      const refusals: string[] = [];
      page.on('response', (response) => {
        if (response.status() === 401) refusals.push(response.headers()['www-authenticate'] ?? 'no challenge');
      });
      await signInStrongly(page, server, company, agent);
      // The refresh that renews the session: a bound one may first meet a nonce challenge (401 use_dpop_nonce), answered once.
      const refreshed = page.waitForResponse(
        (response) => response.url().endsWith('/wallet/v3/auth/token/refresh') && response.status() !== 401,
      );
      // 14 min 40 s on: a token not kept fresh would be within the client's 30 s margin, refreshed
      // first by an ordinary request, which the browser drops with the page. Kept fresh, it was
      // refreshed on the way, 2 minutes before its end (in real time its answer is long back by then).
      await page.clock.runFor(880_000);
      expect((await refreshed).status()).toBe(200);
      // One check more, after the refresh: the page goes once its logout is ready. A logout made ready
      // before the refresh would carry a proof from 780 s ahead of the service's clock, and no nonce.
      const lastCheckAt = (await page.evaluate(() => Date.now())) + CHECK_EVERY_MS;
      await page.clock.runFor(CHECK_EVERY_MS);
      await page.waitForFunction((at) => Number(document.documentElement.dataset.logoutReadyAt) >= at, lastCheckAt);
      // The page goes: its keepalive logout, sent as it unloads, is the browser's to deliver (no event of the page's tells it).
      await page.reload();
      await page.getByLabel('Login PIN').waitFor();
      // At the API: the PIN sign-in's session ended by that logout (the code sign-in's ended at the first reload).
      const ended = async () =>
        (await queryPartitionPrefix(server.local.app.table, userKey(company.company_id, agent.userId).pk, SESSION_PREFIX)).filter(
          (item) => item.ended_reason === 'logout',
        ).length;
      await expect.poll(ended, { timeout: 15_000 }).toBe(2);
      expect(
        refusals.every((challenge) => /^DPoP .*error="use_dpop_nonce"/.test(challenge)),
        refusals.join('; '),
      ).toBe(true);
      expect(problems.filter((problem) => !problem.includes('401 (Unauthorized)'))).toEqual([]);
      expect(problems.length).toBe(refusals.length);
    },
    PAGE_TEST_TIMEOUT_MS,
  );

  it(
    'shows a support agent no admin control where an admin sees them; the API refuses support anyway',
    async () => {
      const { server, company } = service;
      const [admin, agent, otherAgent] = [
        await employee(server, company, 'admin'),
        await employee(server, company, 'support'),
        await employee(server, company, 'support'),
      ];
      // A disabled customer with a recovery awaiting approval: an admin may enable and approve.
      const customer = await signUp(server.local, company);
      const starter = await staffMember(server.local, company, 'admin');
      const headers = { CompanyID: company.company_id, Authorization: starter.session };
      const recover = await invoke(server.local.handlers.adminUsersPhoneRecover, {
        path: '/r',
        headers,
        body: { user_id: customer.userId, dial_code: '+1', phone_number: randomPhoneNumber(), reason: 'setup' },
      });
      expect(recover.status, JSON.stringify(recover.body)).toBe(200);
      const disable = await invoke(server.local.handlers.adminUsersStatus, {
        path: '/s',
        headers,
        body: { user_id: customer.userId, status: 'disabled', reason: 'setup' },
      });
      expect(disable.status, JSON.stringify(disable.body)).toBe(200);
      const ADMIN_CONTROLS = ['Approvals', 'Employees and roles', 'Enable', 'Approve recovery', 'Show phone and email'];
      const shown = async (page: Page) => {
        const counts = await Promise.all(ADMIN_CONTROLS.map((name) => page.getByRole('button', { name, exact: true }).count()));
        return ADMIN_CONTROLS.filter((_, index) => counts[index]! > 0);
      };

      const asAdmin = await consolePage(browser, service.server);
      await signInStrongly(asAdmin.page, server, company, admin);
      await openAccount(asAdmin.page, customer.userId, 'TICKET-303');
      expect(await shown(asAdmin.page)).toEqual(ADMIN_CONTROLS);

      const asSupport = await consolePage(browser, service.server);
      await signInStrongly(asSupport.page, server, company, agent);
      await openAccount(asSupport.page, customer.userId, 'TICKET-303');
      expect(await shown(asSupport.page)).toEqual([]);
      // What support may do is there: cancelling the recovery, ending sessions.
      expect(await asSupport.page.getByRole('button', { name: 'Cancel recovery' }).count()).toBe(1);
      expect(await asSupport.page.getByRole('button', { name: 'End sessions' }).count()).toBe(1);
      expect([...asAdmin.problems, ...asSupport.problems]).toEqual([]);

      // And the API: another support agent's fresh session is refused each admin action (403 code 5).
      const supportSession = await logIn(server.local, company, otherAgent);
      const post = (path: string, body: Record<string, unknown>) =>
        fetch(`${server.baseUrl}${path}`, {
          method: 'POST',
          headers: { CompanyID: company.company_id, Authorization: supportSession, 'Content-Type': 'application/json' },
          body: JSON.stringify({ ...body, reason: 'TICKET-303' }),
        }).then(async (response) => [response.status, ((await response.json()) as { error: number[] }).error]);
      expect(await post('/wallet/v3/admin/users/status', { user_id: customer.userId, status: 'active' })).toEqual([403, [5]]);
      expect(await post('/wallet/v3/admin/employees/role', { user_id: agent.userId, role: 'admin' })).toEqual([403, [5]]);
      expect(await post('/wallet/v3/admin/users/view', { user_id: customer.userId, reveal: 1 })).toEqual([403, [5]]);
    },
    PAGE_TEST_TIMEOUT_MS,
  );

  it(
    'shows a customer whose names and device are markup as text, and nothing of it runs',
    async () => {
      const { server, company } = service;
      const admin = await employee(server, company, 'admin');
      const names = { first_name: '<img src=x onerror=window.__xss=1>', last_name: '<script>window.__xss=1</script>' };
      const { account } = await signUpWithDevice(server.local, company, { ...names, device_id: '<img src=x onerror=window.__xss=2>' });
      const { page, problems } = await consolePage(browser, service.server);
      await signInStrongly(page, server, company, admin);

      await page.getByLabel('Phone, email, user id or referral code').fill(`+1${account.registration.phone_number}`);
      await page.getByLabel('Reason').fill('TICKET-404');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const whole = `${names.first_name} ${names.last_name}`;
      await page.getByRole('heading', { name: whole, exact: true }).waitFor();
      await page.getByRole('button', { name: 'Open account' }).click();
      await page.getByRole('heading', { name: 'Profile' }).waitFor();
      expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe(whole);
      expect(await page.getByRole('table', { name: /Trusted devices/ }).textContent()).toContain(
        String('<img src=x onerror=window.__xss=2>'),
      );
      // The name in a dialog's sentence too.
      await page.getByRole('button', { name: 'Disable', exact: true }).click();
      expect(await page.getByRole('dialog').textContent()).toContain(whole);
      await page.getByRole('dialog').getByRole('button', { name: 'Back' }).click();

      expect(await inPage(page, 'window.__xss')).toBeUndefined();
      // No element came of the text: the page's one script, no image at all.
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.locator('script').count()).toBe(1);
      // Nothing was refused by the CSP or Trusted Types either: our own code asked for nothing they block.
      expect(problems).toEqual([]);
    },
    PAGE_TEST_TIMEOUT_MS,
  );

  it(
    'counts a code text’s SMS as it is typed, refuses on the page the edit that needs a third, with the count, and saves one that fits',
    async () => {
      const { server, company } = service;
      const [admin, second] = [await employee(server, company, 'admin'), await employee(server, company, 'admin')];
      const { page, problems } = await consolePage(browser, service.server);
      await signInStrongly(page, server, company, admin);
      await page.getByRole('button', { name: 'Company settings' }).click();
      await page.getByLabel('Reason').fill('TICKET-505');
      await page.getByRole('button', { name: 'Show settings' }).click();
      await page.getByLabel('New language').fill('en');
      await page.getByRole('button', { name: 'Add code text' }).click();
      const text = page.getByLabel('Code text (en)');
      // Starts from the built-in text: one SMS with the company's name.
      const size = page.locator(`#${await text.getAttribute('id')}-size`);
      expect(await size.textContent()).toMatch(/^1 SMS · GSM-7/);

      // 300 more characters: three SMS, refused on the page with the count; nothing is sent.
      const long = `{code} is your {brand} code. ${'Please keep this code to yourself. '.repeat(9)}`;
      await text.fill(long);
      expect(await size.textContent()).toMatch(/^3 SMS · GSM-7 · \d+ characters: over the limit of 2 SMS$/);
      await page.getByRole('button', { name: 'Save settings' }).click();
      const refusal = page.getByRole('alert').filter({ hasText: 'Not saved' });
      expect(await refusal.textContent()).toMatch(/The code text \(en\) would need 3 SMS \(\d+ GSM-7 units\); at most 2\./);
      expect(await page.getByRole('dialog').count()).toBe(0);
      const stored = () =>
        server.local.app.table.client
          .send(new GetCommand({ TableName: server.local.app.table.name, Key: companyKey(company.company_id), ConsistentRead: true }))
          .then(({ Item }) => Item);
      expect((await stored())?.sms_text).toBeUndefined();

      // Shorter: two SMS, saved after the confirmation, and shown as stored.
      const fits = `{code} is your {brand} code. ${'Keep it to yourself. '.repeat(8)}`;
      await text.fill(fits);
      expect(await size.textContent()).toMatch(/^2 SMS · GSM-7/);
      await page.getByRole('button', { name: 'Save settings' }).click();
      const dialog = page.getByRole('dialog');
      expect(await dialog.textContent()).toContain('sms_text');
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      // A code text is a security setting (contract 3.14, round 6): asked here, nothing changed until a second admin approves it.
      await page.getByText(/^Asked: another admin approves this change under Approvals/).waitFor();
      expect((await stored())?.sms_text).toBeUndefined();
      const other = await consolePage(browser, service.server);
      await signInStrongly(other.page, server, company, second);
      await other.page.getByRole('button', { name: 'Approvals' }).click();
      await other.page.getByLabel('Reason').fill('TICKET-505 review');
      await other.page.getByRole('button', { name: 'Show what awaits' }).click();
      const awaiting = other.page.getByRole('article', { name: 'Settings change awaiting approval' });
      expect(await awaiting.textContent()).toContain(fits);
      await awaiting.getByRole('button', { name: 'Approve settings' }).click();
      await other.page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
      await awaiting.waitFor({ state: 'detached' });
      expect((await stored())?.sms_text?.templates).toEqual({ en: fits });
      expect([...problems, ...other.problems]).toEqual([]);
    },
    PAGE_TEST_TIMEOUT_MS,
  );
  it(
    'shows support a PIN reset that waits (contract 3.15) and cancels it with a reason: the current PIN stays',
    async () => {
      const { server, company } = service;
      const agent = await employee(server, company, 'support');
      const { account, device } = await signUpWithDevice(server.local, company);
      // Whoever holds the SIM: an OTP login, then a reset of the login PIN, which waits.
      const swapper = await otpLogin(server.local, company, account);
      const reset = await invoke(server.local.handlers.resetPin, {
        path: '/r',
        headers: { CompanyID: company.company_id, Authorization: `Token ${swapper.body.data.token.token}` },
        body: { pin_type: 1, new_pin: '6842' },
      });
      expect(reset.body.data.pending, JSON.stringify(reset.body)).toBe(1);

      const { page, problems } = await consolePage(browser, service.server);
      await signInStrongly(page, server, company, agent);
      await openAccount(page, account.userId, 'TICKET-404');
      const waiting = page.getByRole('region', { name: 'Changes that wait' });
      expect(await waiting.textContent()).toContain('New login PIN');
      expect(await act(page, 'Cancel: New login PIN', 'TICKET-404 caller says not them')).toContain('The change is cancelled');
      await page.getByRole('heading', { name: 'Profile' }).waitFor();
      expect(await page.getByRole('region', { name: 'Changes that wait' }).count()).toBe(0);
      // The owner's PIN is still the PIN, after the hold too.
      server.local.clock.advance(server.local.app.config.phoneChangeHoldHours * 3600 + 1);
      expect((await pinLogin(server.local, company, device, PINS.login_pin)).status).toBe(200);
      expect(problems).toEqual([]);
    },
    PAGE_TEST_TIMEOUT_MS,
  );
});
