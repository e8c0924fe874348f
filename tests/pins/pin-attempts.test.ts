// countThenComparePin, the counted PIN check both PINs share, against DynamoDB Local: a try is
// taken before a PIN is compared, so 10 wrong PINs at once compare 5 and lock the PIN; a right one
// clears the count; the two PINs count apart.
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { countThenComparePin, PinBusy, PinRefused } from '../../lib/pins/pin-attempts.js';
import type { PinType } from '../../lib/pins/pin-hashes.js';
import { pinDailyKey, pinTriesKey } from '../../lib/store/keys.js';
import { getUser } from '../../lib/store/user-store.js';
import { type Account, type InProcessService, newCompany, nextHourStart, signUp, testService } from '../helpers.js';

const service = testService();
const PINS = { login_pin: '4826', transaction_pin: '739146' };
let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

/** One counted check; `daily` counts on the day's cap too, `tally` names one, `on` another service and company. */
async function attempt(
  account: Account,
  pinType: PinType,
  pin: string,
  {
    daily = false,
    tally,
    on = { service, company },
  }: { daily?: boolean; tally?: string; on?: { service: InProcessService; company: Company } } = {},
) {
  const companyId = on.company.company_id;
  const user = (await getUser(on.service.app.table, companyId, account.userId, true))!;
  const storedHash = pinType === 'login' ? user.login_pin_hash : user.transaction_pin_hash;
  try {
    const { writes } = await countThenComparePin(on.service.app, {
      companyId,
      userId: account.userId,
      pinType,
      pin,
      storedHash,
      daily,
      tally,
    });
    await on.service.app.table.client.send(new DeleteCommand(writes[0]!.item.Delete!));
    return { right: true as const };
  } catch (error) {
    if (error instanceof PinBusy) return { code: 16 };
    if (!(error instanceof PinRefused)) throw error;
    return { code: error.code, attemptsLeft: error.data?.attempts_left, lockedNow: error.lockedNow };
  }
}

describe('countThenComparePin', () => {
  it('compares 5 of 10 wrong PINs sent at once (17 with 4..0 tries left) and locks the PIN (18, marked by the fifth), the right PIN included', async () => {
    const account = await signUp(service, company, PINS);
    const answers = await Promise.all(Array.from({ length: 10 }, () => attempt(account, 'login', '1357')));
    const wrong = answers.filter((answer) => 'code' in answer && answer.code === 17);
    expect(wrong.map((answer) => ('attemptsLeft' in answer ? answer.attemptsLeft : -1)).sort()).toEqual([0, 1, 2, 3, 4]);
    // The other five took no try: 18 once the fifth marked the lock, busy (16) while it was in flight.
    expect(answers.filter((answer) => 'code' in answer && (answer.code === 18 || answer.code === 16))).toHaveLength(5);
    expect(answers.filter((answer) => 'lockedNow' in answer && answer.lockedNow)).toHaveLength(1);
    expect(await attempt(account, 'login', PINS.login_pin)).toMatchObject({ code: 18 });
    // The transaction PIN counts on its own.
    expect(await attempt(account, 'transaction', PINS.transaction_pin)).toEqual({ right: true });
  });

  it('sets the count back to 0 with a right PIN', async () => {
    const account = await signUp(service, company, PINS);
    for (const left of [4, 3, 2]) expect(await attempt(account, 'transaction', '2468')).toMatchObject({ code: 17, attemptsLeft: left });
    expect(await attempt(account, 'transaction', PINS.transaction_pin)).toEqual({ right: true });
    expect(await attempt(account, 'transaction', '2468')).toMatchObject({ code: 17, attemptsLeft: 4 });
  });

  it("leaves the day's wrong tries as they were when a locked PIN compares nothing: a minute later, not even the latest try's time moves", async () => {
    const account = await signUp(service, company, PINS);
    const start = nextHourStart() + 600;
    service.clock.freeze(start);
    for (const left of [4, 3, 2, 1, 0])
      expect(await attempt(account, 'login', '1357', { daily: true })).toMatchObject({ code: 17, attemptsLeft: left });
    const day = pinDailyKey(company.company_id, account.userId, 'login');
    const read = async () =>
      (await service.app.table.client.send(new GetCommand({ TableName: service.app.table.name, Key: day, ConsistentRead: true }))).Item;
    const before = await read();
    expect(before).toMatchObject({ last_try_at: start });
    expect(before?.tries.size).toBe(5);
    service.clock.freeze(start + 60);
    expect(await attempt(account, 'login', PINS.login_pin, { daily: true })).toMatchObject({ code: 18 });
    expect(await read()).toEqual(before);
  });

  it("opens no day when a locked PIN compares nothing: the day's window its try opened goes with the try", async () => {
    const account = await signUp(service, company, PINS);
    for (const left of [4, 3, 2, 1, 0])
      expect(await attempt(account, 'login', '1357', { tally: 'device-a' })).toMatchObject({ attemptsLeft: left });
    expect(await attempt(account, 'login', PINS.login_pin, { daily: true, tally: 'device-a' })).toMatchObject({ code: 18 });
    const day = pinDailyKey(company.company_id, account.userId, 'login');
    const stored = await service.app.table.client.send(
      new GetCommand({ TableName: service.app.table.name, Key: day, ConsistentRead: true }),
    );
    expect(stored.Item).toBeUndefined();
  });

  it("leaves a tally as it was when the day's wrong tries ran out: a minute later, nothing compared, no tally opened, no try's time moved", async () => {
    const twoADay = testService({ PIN_DAILY_MAX_FAILURES: '2' });
    const other = await newCompany(twoADay);
    const account = await signUp(twoADay, other, PINS);
    const on = { service: twoADay, company: other };
    const start = nextHourStart() + 600;
    twoADay.clock.freeze(start);
    const read = async (key: { pk: string; sk: string }) =>
      (await twoADay.app.table.client.send(new GetCommand({ TableName: twoADay.app.table.name, Key: key, ConsistentRead: true }))).Item;
    for (const left of [4, 3])
      expect(await attempt(account, 'login', '1357', { daily: true, tally: 'device-a', on })).toMatchObject({ attemptsLeft: left });
    const tally = pinTriesKey(other.company_id, account.userId, 'login', 'device-a');
    const before = await read(tally);
    expect(before).toMatchObject({ last_try_at: start });
    twoADay.clock.freeze(start + 60);
    // The day's two are spent: the right PIN is refused (18) on this tally and on a new one.
    expect(await attempt(account, 'login', PINS.login_pin, { daily: true, tally: 'device-a', on })).toMatchObject({ code: 18 });
    expect(await attempt(account, 'login', PINS.login_pin, { daily: true, tally: 'device-b', on })).toMatchObject({ code: 18 });
    expect(await read(tally)).toEqual(before);
    expect(await read(pinTriesKey(other.company_id, account.userId, 'login', 'device-b'))).toBeUndefined();
  });
});

afterEach(() => service.clock.reset());
