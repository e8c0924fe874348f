// What the console's browser tests share: employees with a role (no session yet, so the page's own
// sign-in sends their first code), the code the outbox got, and signing in as an agent does.
import type { Browser, Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { setEmployeeRole } from '../../lib/admin/employee-role.js';
import type { Company } from '../../lib/companies/companies.js';
import { deviceSettleWrites, queryUserDevices } from '../../lib/store/device-store.js';
import { writeTransaction } from '../../lib/store/transactions.js';
import type { OfflineServer } from '../e2e/offline-server.js';
import { PAGE_TEST_TIMEOUT_MS, untimedPage } from '../harness/chromium.js';
import { type Account, codeIn, newEmployee, outboxMessages } from '../helpers.js';

export type Employee = Account & { phoneNumber: string };

/** An employee of the company with the role, registered by an operator: no code sent to them yet. */
export async function employee(server: OfflineServer, company: Company, role: 'support' | 'admin'): Promise<Employee> {
  const account = await newEmployee(server.local, company);
  await setEmployeeRole(server.local.app, {
    companyId: company.company_id,
    actorId: 'operator',
    userId: account.userId,
    role,
    reason: 'setup',
  });
  return { ...account, phoneNumber: String(account.registration.phone_number) };
}

/** The code of the next text to a number (E.164) after the `before` texts it had. */
export async function nextCode(server: OfflineServer, phoneE164: string, before: number): Promise<string> {
  const file = server.local.app.config.sms.outboxFile;
  await expect.poll(() => outboxMessages(file, phoneE164).length, { timeout: PAGE_TEST_TIMEOUT_MS }).toBeGreaterThan(before);
  return codeIn(outboxMessages(file, phoneE164).at(-1));
}

export const textsTo = (server: OfflineServer, phoneE164: string) =>
  outboxMessages(server.local.app.config.sms.outboxFile, phoneE164).length;

/**
 * A page of a new browser context whose console errors and uncaught exceptions are kept. The
 * packaged Chromium runs as one process, whose contexts share an origin's storage: so the page
 * starts with the origin's storage emptied (a browser that never saw the console). Its contexts
 * stay open until the browser closes: closing one can end that one process.
 */
export async function consolePage(browser: Browser, server: OfflineServer): Promise<{ page: Page; problems: string[] }> {
  const page = await untimedPage(browser);
  const devtools = await page.context().newCDPSession(page);
  await devtools.send('Storage.clearDataForOrigin', { origin: new URL(server.baseUrl).origin, storageTypes: 'all' });
  await devtools.detach();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  return { page, problems };
}

/** Signs in on the console by code, as an agent does with the mouse: company ID, phone, the code the outbox got. */
export async function signInByCode(
  page: Page,
  server: OfflineServer,
  company: Company,
  who: Employee,
  options: { remember?: boolean } = {},
): Promise<void> {
  await page.goto(`${server.baseUrl}/console`);
  await page.getByLabel('Company ID').fill(company.company_id);
  await page.getByLabel('Phone number').fill(who.phoneNumber);
  const before = textsTo(server, `+1${who.phoneNumber}`);
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByLabel('Login code').fill(await nextCode(server, `+1${who.phoneNumber}`, before));
  if (options.remember) await page.getByLabel('Remember this browser').check();
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Find a user' }).waitFor();
}

/**
 * Settles the devices an employee's code sign-ins bound (the remembered browser's key), as another
 * admin's approval would (contract 3.14, round 6: an employee's device never settles by time). The
 * route for that approval, POST /wallet/v3/admin/employees/devices/approve, has tests of its own
 * (tests/admin/employee-device-approve.test.ts); here the tests write what it writes, so that no
 * second admin joins the page tests' company.
 */
export async function settleEmployeeDevices(server: OfflineServer, company: Company, who: Employee): Promise<void> {
  const { table } = server.local.app;
  const devices = await queryUserDevices(table, company.company_id, who.userId);
  for (const device of devices.filter((each) => each.probation_since !== undefined)) {
    await writeTransaction(
      table,
      deviceSettleWrites(table, company.company_id, who.userId, device.device_key).map((item) => ({ label: 'device', item })),
    );
  }
}

/**
 * Signs in as the back office asks (API contract 3.14, round 6: a strong session): by code with
 * "Remember this browser" ticked, which binds the browser's key; that device settled as another
 * admin would settle it; then, after a reload, by the login PIN alone, signed by that key.
 */
export async function signInStrongly(page: Page, server: OfflineServer, company: Company, who: Employee): Promise<void> {
  await signInByCode(page, server, company, who, { remember: true });
  await settleEmployeeDevices(server, company, who);
  await page.reload();
  await page.getByLabel('Login PIN').fill(String(who.registration.login_pin));
  await page.getByRole('button', { name: 'Sign in with PIN' }).click();
  await page.getByRole('heading', { name: 'Find a user' }).waitFor();
}

/** Finds a customer by an exact key with a reason, and opens their account. */
export async function openAccount(page: Page, key: string, reason: string): Promise<void> {
  await page.getByRole('button', { name: 'Find a user' }).click();
  await page.getByLabel('Phone, email, user id or referral code').fill(key);
  await page.getByLabel('Reason').fill(reason);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.getByRole('button', { name: 'Open account' }).click();
  await page.getByRole('heading', { name: 'Profile' }).waitFor();
}

/** Runs an account action through its dialog: the reason, then Confirm; answers the outcome announced. */
export async function act(
  page: Page,
  action: string,
  reason: string,
  fill: (dialog: Locator) => Promise<void> = async () => undefined,
): Promise<string> {
  await page.getByRole('button', { name: action, exact: true }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('heading', { name: action }).waitFor();
  await fill(dialog);
  await dialog.getByLabel('Reason').fill(reason);
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  // The dialog closes on success; a refusal stays in it, as text.
  const refusal = dialog.locator('.message.alert:not(:empty)');
  const closed = dialog.waitFor({ state: 'detached' }).then(() => 'closed' as const);
  const refused = refusal.waitFor().then(() => 'refused' as const);
  // The one that loses the race fails later, when the page closes: nothing waits for it.
  for (const outcome of [closed, refused]) outcome.catch(() => undefined);
  if ((await Promise.race([closed, refused])) === 'refused') throw new Error(`${action} refused: ${await refusal.textContent()}`);
  const outcome = page.locator('.account > .message.status');
  await outcome.waitFor();
  return (await outcome.textContent()) ?? '';
}
