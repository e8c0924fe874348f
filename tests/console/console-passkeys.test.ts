// The console's passkeys (API contract 3.16) in a real headless Chromium whose WebAuthn is a
// virtual authenticator of the DevTools protocol (a platform authenticator with user
// verification, resident keys), against the run's serverless-offline: an admin adds a passkey
// from a strong session with a reason (kept in the staff record), signs out and in with it; on a second browser holding the synced
// passkey, signs in with no SMS and approves a recovery at once; a page on another origin gets
// nothing from it; removing it ends the session it began and it signs in no more. A company
// whose webauthn origins leave the console out refuses the passkey, and the page says so.
// The pages are on http://localhost: WebAuthn takes no IP address as rp_id, and localhost is a
// secure context.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Company, updateCompanySettings } from '../../lib/companies/companies.js';
import { STAFF_ACTION_PREFIX, userKey } from '../../lib/store/keys.js';
import { queryPartitionPrefix } from '../../lib/store/partition-query.js';
import { type OfflineServer, useOfflineService } from '../e2e/offline-server.js';
import { launchChromium, PAGE_TEST_TIMEOUT_MS } from '../harness/chromium.js';
import { newCompany, randomPhoneNumber, signUp } from '../helpers.js';
import { act, consolePage, employee, openAccount, signInStrongly, textsTo } from './console-browser.js';

const service = useOfflineService();

/** The staff record's entries of an employee's own passkeys, oldest first: action and reason. */
async function ownPasskeyRecords(server: OfflineServer, company: Company, userId: string) {
  const records = await queryPartitionPrefix(server.local.app.table, userKey(company.company_id, userId).pk, STAFF_ACTION_PREFIX);
  return records
    .filter(({ action }) => String(action).startsWith('self_passkey'))
    .sort((a, b) => Number(a.seq) - Number(b.seq))
    .map(({ action, reason }) => ({ action, reason }));
}
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
}, 120_000);

afterAll(() => browser?.close());

/** The same server, its pages opened at http://localhost:<port> (the console's origin for the passkeys). */
const onLocalhost = (server: OfflineServer): OfflineServer => ({ ...server, baseUrl: server.baseUrl.replace('127.0.0.1', 'localhost') });

/** Sets a company's webauthn settings (contract 3.16): rp_id localhost and the origins given. */
const allowOrigins = (server: OfflineServer, company: Company, origins: string[]) =>
  updateCompanySettings(server.local.app.table, server.local.clock, company.company_id, { webauthn: { rp_id: 'localhost', origins } });

type Credential = { credentialId: string; isResidentCredential: boolean; rpId?: string; userHandle?: string; signCount: number };

/**
 * A virtual authenticator on the page (the DevTools protocol's WebAuthn domain): a platform
 * authenticator that verifies its user, holding the credentials given (a synced passkey).
 */
async function virtualAuthenticator(page: Page, holding: Credential[] = []) {
  const devtools = await page.context().newCDPSession(page);
  await devtools.send('WebAuthn.enable');
  const { authenticatorId } = await devtools.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  for (const credential of holding) await devtools.send('WebAuthn.addCredential', { authenticatorId, credential: credential as never });
  return {
    credentials: async () => (await devtools.send('WebAuthn.getCredentials', { authenticatorId })).credentials as Credential[],
  };
}

const alert = (page: Page) => page.locator('.sign-in .message.alert:not(:empty), section .message.alert:not(:empty)').first();

describe('passkeys in the console', () => {
  it(
    'adds a passkey from a strong session, signs in with it (and on a browser holding it synced, with no SMS) and approves a recovery at once; another origin gets nothing; removed, it ends its session and signs in no more',
    async () => {
      const { server, company } = service;
      const local = onLocalhost(server);
      await allowOrigins(server, company, [new URL(local.baseUrl).origin]);
      const [starter, approver] = [await employee(server, company, 'admin'), await employee(server, company, 'admin')];
      const customer = await signUp(server.local, company);
      const customerPhone = `+1${customer.registration.phone_number}`;

      // The first admin starts a recovery (another admin must approve it).
      const one = await consolePage(browser, server);
      await signInStrongly(one.page, server, company, starter);
      await openAccount(one.page, customerPhone, 'TICKET-301');
      const started = await act(one.page, 'Start recovery', 'TICKET-301 lost SIM', async (dialog) => {
        await dialog.getByLabel('New phone number').fill(randomPhoneNumber());
      });
      expect(started).toContain('awaits another admin');

      // The second admin, strongly signed in on localhost, adds a passkey on this browser's authenticator.
      const two = await consolePage(browser, local);
      const desk = await virtualAuthenticator(two.page);
      await signInStrongly(two.page, local, company, approver);
      await two.page.getByRole('button', { name: 'Your passkeys' }).click();
      await two.page.getByText('You have no passkey yet.').waitFor();
      // An employee's own passkey is a key to the back office: its reason is asked, and kept in the staff record.
      const addForm = two.page.getByRole('form', { name: 'Add a passkey' });
      await addForm.getByLabel('Passkey name').fill('Desk laptop');
      await addForm.getByRole('button', { name: 'Add a passkey' }).click();
      // The browser holds the form back (the field is required): no ceremony, nothing sent.
      expect(await addForm.getByLabel('Reason').evaluate((input) => (input as HTMLInputElement).validity.valueMissing)).toBe(true);
      expect(await desk.credentials()).toEqual([]);
      await addForm.getByLabel('Reason').fill('TICKET-302 new desk laptop');
      await addForm.getByRole('button', { name: 'Add a passkey' }).click();
      await two.page.getByText('Passkey “Desk laptop” added').waitFor();
      expect(await ownPasskeyRecords(server, company, approver.userId)).toEqual([
        { action: 'self_passkey_add', reason: 'TICKET-302 new desk laptop' },
      ]);
      expect(await two.page.getByRole('row', { name: /Desk laptop/ }).textContent()).toMatch(/never/);
      expect(await desk.credentials()).toMatchObject([{ isResidentCredential: true, rpId: 'localhost' }]);

      // Signed out, this remembered browser offers the passkey first; it signs in, strong.
      await two.page.getByRole('button', { name: 'Sign out' }).click();
      await two.page.getByText('Signed out.').waitFor();
      await two.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await two.page.getByRole('heading', { name: 'Find a user' }).waitFor();
      // The passkey as the platform syncs it, signature counter included (one that went back is refused as a clone).
      const [credential] = await desk.credentials();

      // A second browser that never saw the console, holding the passkey synced: the company ID alone, no phone, no SMS.
      const three = await consolePage(browser, local);
      await virtualAuthenticator(three.page, [credential as Credential]);
      const textsBefore = textsTo(server, `+1${approver.phoneNumber}`);
      await three.page.goto(`${local.baseUrl}/console`);
      await three.page.getByLabel('Company ID').fill(company.company_id);
      await three.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await three.page.getByRole('heading', { name: 'Find a user' }).waitFor();
      expect(textsTo(server, `+1${approver.phoneNumber}`)).toBe(textsBefore);
      // Strong and fresh at once: an admin-only action.
      await openAccount(three.page, customerPhone, 'TICKET-301');
      expect(await act(three.page, 'Approve recovery', 'TICKET-301 identity checked')).toContain('Recovery approved');

      // The same passkey on a page of another origin (127.0.0.1): the browser refuses the ceremony, the page says why.
      const elsewhere = await consolePage(browser, server);
      await virtualAuthenticator(elsewhere.page, [credential as Credential]);
      await elsewhere.page.goto(`${server.baseUrl}/console`);
      await elsewhere.page.getByLabel('Company ID').fill(company.company_id);
      await elsewhere.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await expect.poll(async () => (await alert(elsewhere.page).textContent()) ?? '').toMatch(/not one your company’s passkeys are for/);
      expect(await elsewhere.page.getByRole('heading', { name: 'Find a user' }).count()).toBe(0);

      // Removed with its reason, recorded, it ends the session it began, here too.
      await three.page.getByRole('button', { name: 'Your passkeys' }).click();
      const row = three.page.getByRole('row', { name: /Desk laptop/ });
      await expect.poll(async () => (await row.textContent()) ?? '').not.toMatch(/never/);
      await three.page.getByRole('button', { name: 'Remove passkey Desk laptop' }).click();
      const dialog = three.page.getByRole('dialog');
      await dialog.getByLabel('Reason').fill('TICKET-303 laptop returned');
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      await three.page.getByText('Your session has ended: sign in again.').waitFor();
      expect((await ownPasskeyRecords(server, company, approver.userId)).map(({ action }) => action)).toEqual([
        'self_passkey_add',
        'self_passkey_remove',
      ]);
      // The authenticator still holds it; the service no longer takes it (401 code 4, no account named).
      await three.page.getByLabel('Company ID').fill(company.company_id);
      await three.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await expect
        .poll(async () => (await alert(three.page).textContent()) ?? '')
        .toMatch(/That passkey was not accepted.*\(HTTP 401, code 4\)/);
      expect(one.problems.concat(two.problems.filter((each) => !/401/.test(each)))).toEqual([]);
    },
    PAGE_TEST_TIMEOUT_MS,
  );

  it(
    'refuses a passkey made on a console whose origin the company’s webauthn settings leave out: the page shows the refusal, nothing is kept',
    async () => {
      const { server } = service;
      const local = onLocalhost(server);
      const company = await newCompany(server.local);
      await allowOrigins(server, company, ['http://localhost:1']);
      const admin = await employee(server, company, 'admin');

      const { page } = await consolePage(browser, local);
      const authenticator = await virtualAuthenticator(page);
      await signInStrongly(page, local, company, admin);
      await page.getByRole('button', { name: 'Your passkeys' }).click();
      await page.getByText('You have no passkey yet.').waitFor();
      await page.getByLabel('Passkey name').fill('Desk laptop');
      await page.getByRole('form', { name: 'Add a passkey' }).getByLabel('Reason').fill('TICKET-304');
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      // The browser made one (rp_id localhost is this page's host); the service refuses its origin.
      await expect
        .poll(async () => (await alert(page).textContent()) ?? '')
        .toMatch(/The service refused what was sent\..*\(HTTP 400, code 1\)/);
      expect(await authenticator.credentials()).toHaveLength(1);
      expect(await page.getByText('You have no passkey yet.').count()).toBe(1);

      // Signed out, that credential signs in to nothing.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByText('Signed out.').waitFor();
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await expect.poll(async () => (await alert(page).textContent()) ?? '').toMatch(/That passkey was not accepted.*\(HTTP 401, code 4\)/);
    },
    PAGE_TEST_TIMEOUT_MS,
  );
});
