import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, type PutCommandInput } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import { removeDevice } from '../../lib/devices/device-binding.js';
import { changeEndingSessions, setStatusEndingSessions } from '../../lib/sessions/end-sessions.js';
import { counterStillIs } from '../../lib/store/conditional-write.js';
import { deviceRemoveWrites } from '../../lib/store/device-store.js';
import { SESSION_PREFIX, userKey } from '../../lib/store/keys.js';
import { querySessions } from '../../lib/store/session-store.js';
import { UserStatus } from '../../lib/store/user-status.js';
import {
  loginPinTries,
  noticeEvents,
  otpLogin,
  PINS,
  pinLogin,
  sessionOf,
  signUpWithDevice,
  tokenWorks,
} from '../devices/device-helpers.js';
import { newDeviceKeyPair, newNonce } from '../harness/device-keys.js';
import { scanItems } from '../harness/table-snapshot.js';
import { type Account, expectFailure, expectFiveComparedFiveRefused, invoke, newCompany, testService } from '../helpers.js';

const service = testService();
let company: Company;
let otherCompany: Company;

beforeAll(async () => {
  [company, otherCompany] = await Promise.all([newCompany(service), newCompany(service)]);
});

afterEach(() => service.clock.reset());

const notices = (userId: string) => noticeEvents(service, company, userId);
/**
 * A PIN login on the device whose every DynamoDB request, once answered, is followed by `after`
 * (what races it), on the service's own client: the request's command, input and input as JSON.
 */
async function pinLoginRacedBy(
  device: Parameters<typeof pinLogin>[2],
  after: (request: { name: string; input: unknown; text: string }) => Promise<void>,
  /** 'before': the racer runs before each request is sent instead. */
  at: 'before' | 'after' = 'after',
): ReturnType<typeof pinLogin> {
  const { middlewareStack } = service.app.table.client;
  middlewareStack.add(
    (next, context) => async (args) => {
      const request = { name: context.commandName ?? '', input: args.input, text: JSON.stringify(args.input) };
      if (at === 'before') await after(request);
      const answered = await next(args);
      if (at === 'after') await after(request);
      return answered;
    },
    { step: 'initialize', name: 'racedLogin' },
  );
  try {
    return await pinLogin(service, company, device, PINS.login_pin);
  } finally {
    middlewareStack.remove('racedLogin');
  }
}
/** The items of a user's sessions begun by PIN login, ended or not. */
const pinSessionsOf = async (account: Account) =>
  (await scanItems(service.app.table.client, service.app.table.name, company.company_id)).filter(
    (item) => item.pk.endsWith(account.userId) && item.sk.startsWith(SESSION_PREFIX) && item.began === 'pin',
  );

describe('login_pin', () => {
  it('logs in with the right PIN, signed in DER or raw r||s: a session that began by PIN on that device', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    for (const encoding of ['der', 'raw'] as const) {
      const answer = await pinLogin(service, company, device, PINS.login_pin, { encoding });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body).toEqual({
        success: 1,
        error: [],
        data: {
          message: 'Logged in successfully',
          token: { type: 'Token', token: expect.any(String) },
          refresh_token: expect.any(String),
          expires_in: 900,
          user_id: account.userId,
          // Nothing waits, and no device is on probation (contract 3.15).
          pending_changes: [],
          probation_devices: [],
        },
      });
      const authorization = `Token ${answer.body.data.token.token}`;
      expect(await sessionOf(service, company, account, authorization)).toMatchObject({ began: 'pin', device_key: device.deviceKey });
      expect(await tokenWorks(service, company, authorization)).toBe(true);
    }
    expect(await sessionOf(service, company, account, account.authorization)).toMatchObject({
      began: 'register',
      device_key: device.deviceKey,
    });
  });

  it('refuses an unknown device, another company’s, a bad signature, a stale timestamp and a replayed nonce with 401, code 4, counting nothing against the PIN', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    // Frozen: a second ticking between here and the service's check would move the window's edge.
    const now = epochSeconds(service.clock);
    service.clock.freeze(now);
    const stranger = { ...newDeviceKeyPair(), deviceKey: device.deviceKey };
    const refusals = [
      pinLogin(service, company, { ...device, deviceKey: '0'.repeat(32) }, '1111'),
      // The right device and signature, sent to another company.
      pinLogin(service, otherCompany, device, '1111', { companyId: otherCompany.company_id }),
      // Signed for another company, sent to this one.
      pinLogin(service, company, device, '1111', { companyId: otherCompany.company_id }),
      pinLogin(service, company, stranger, '1111'),
      pinLogin(service, company, device, '1111', { timestamp: now - 301 }),
      pinLogin(service, company, device, '1111', { timestamp: now + 301 }),
    ];
    for (const answer of await Promise.all(refusals)) {
      expectFailure(answer, 401, 4);
      expect(answer.body.data).toEqual({ message: 'UNAUTHORIZED' });
    }
    const nonce = newNonce();
    expect((await pinLogin(service, company, device, PINS.login_pin, { nonce })).status).toBe(200);
    expectFailure(await pinLogin(service, company, device, '1111', { nonce }), 401, 4);
    expectFailure(await pinLogin(service, company, device, PINS.login_pin, { nonce }), 401, 4);
    expect(await loginPinTries(service, company, account)).toBe(0);
    // Just inside the window either way is fine.
    expect((await pinLogin(service, company, device, PINS.login_pin, { timestamp: now - 299 })).status).toBe(200);
    expect((await pinLogin(service, company, device, PINS.login_pin, { timestamp: now + 299 })).status).toBe(200);
  });

  it('answers a wrong PIN 17 with attempts_left, locks a device after 5 in a row on it (18, the right PIN too, a PIN_LOCKED notice): the other device, and an OTP login, leave it locked', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const second = { ...newDeviceKeyPair() };
    const bound = await otpLogin(service, company, account, { device_public_key: second.publicKey });
    const other = { ...second, deviceKey: bound.body.data.device_key as string };
    // Each device counts its own (contract 3.15): whoever binds new devices locks those, never the owner's.
    for (const [index, left] of [4, 3, 2, 1].entries()) {
      const answer = await pinLogin(service, company, other, '1357');
      expectFailure(answer, 400, 17);
      expect(answer.body.data, `try ${index + 1}`).toEqual({ message: 'BAD_REQUEST', attempts_left: left });
    }
    const wrongOnOwn = await pinLogin(service, company, device, '1357');
    expect(wrongOnOwn.body.data).toEqual({ message: 'BAD_REQUEST', attempts_left: 4 });
    const fifth = await pinLogin(service, company, other, '1357');
    expectFailure(fifth, 400, 17);
    expect(fifth.body.data.attempts_left).toBe(0);
    const locked = await pinLogin(service, company, other, PINS.login_pin);
    expectFailure(locked, 400, 18);
    expect(locked.body.data).toEqual({ message: 'BAD_REQUEST' });
    expect((await notices(account.userId)).filter((event) => event === 5)).toHaveLength(1);
    // The owner's settled device is not locked by them; an OTP login opens nothing (before round 6 it did).
    expect((await pinLogin(service, company, device, PINS.login_pin)).status).toBe(200);
    expect((await otpLogin(service, company, account)).status).toBe(200);
    expectFailure(await pinLogin(service, company, other, PINS.login_pin), 400, 18);
  });

  it('caps the wrong PINs of a day at PIN_DAILY_MAX_FAILURES over the devices bound after the latest right PIN, which then lock; the devices bound before it are not counted', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const newDevices = [];
    for (let i = 0; i < 3; i++) {
      const keys = newDeviceKeyPair();
      const bound = await otpLogin(service, company, account, { device_public_key: keys.publicKey });
      newDevices.push({ ...keys, deviceKey: bound.body.data.device_key as string });
    }
    // 4 + 4 wrong on two new devices (none locked on its own), then 2 on the third: the day's 10.
    for (const [index, count] of [4, 4, 2].entries()) {
      for (let i = 0; i < count; i++) expectFailure(await pinLogin(service, company, newDevices[index]!, '1357'), 400, 17);
    }
    for (const keys of newDevices) expectFailure(await pinLogin(service, company, keys, PINS.login_pin), 400, 18);
    // The owner's device, bound before the latest right PIN (its registration), is no part of the cap.
    for (let i = 0; i < 3; i++) expectFailure(await pinLogin(service, company, device, '1357'), 400, 17);
    expect((await pinLogin(service, company, device, PINS.login_pin)).status).toBe(200);
    // A day on, the cap's window has run out.
    service.clock.advance(24 * 3600 + 1);
    expect((await pinLogin(service, company, newDevices[2]!, PINS.login_pin)).status).toBe(200);
  });

  it('sets the count back to 0 with a right PIN', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    for (let i = 0; i < 3; i++) expectFailure(await pinLogin(service, company, device, '1357'), 400, 17);
    expect(await loginPinTries(service, company, account)).toBe(3);
    expect((await pinLogin(service, company, device, PINS.login_pin)).status).toBe(200);
    expect(await loginPinTries(service, company, account)).toBe(0);
    const answer = await pinLogin(service, company, device, '1357');
    expect(answer.body.data.attempts_left).toBe(4);
  });

  it('counts 10 wrong PINs sent at once exactly: five 17s (4..0 left), five refused (18, or 503 while the five were in flight), the PIN locked after the 5th', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const answers = await Promise.all(Array.from({ length: 10 }, () => pinLogin(service, company, device, '1357')));
    expectFiveComparedFiveRefused(answers);
    expect(await loginPinTries(service, company, account)).toBe(5);
    expectFailure(await pinLogin(service, company, device, PINS.login_pin), 400, 18);
    expect((await notices(account.userId)).filter((event) => event === 5)).toHaveLength(1);
  });

  it('never answers a right PIN "locked" for the user\'s own logins in flight: 12 at once log in or are told to retry (503)', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const answers = await Promise.all(Array.from({ length: 12 }, () => pinLogin(service, company, device, PINS.login_pin)));
    for (const answer of answers) expect([200, 503], JSON.stringify(answer.body)).toContain(answer.status);
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThanOrEqual(5);
    for (const busy of answers.filter((answer) => answer.status === 503)) expect(busy.headers['retry-after']).toBe('1');
    expect(await loginPinTries(service, company, account)).toBe(0);
    expect((await pinLogin(service, company, device, PINS.login_pin)).status).toBe(200);
  });

  it("gives a right PIN's try back when its session is refused (the device removed meanwhile): eight such logins lock nothing", async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const keeper = newDeviceKeyPair();
    const kept = await otpLogin(service, company, account, { device_public_key: keeper.publicKey });
    const removal = invoke(service.handlers.devicesRemove, {
      path: '/wallet/v3/auth/devices/remove',
      headers: { CompanyID: company.company_id, Authorization: `Token ${kept.body.data.token.token}` },
      body: { device_key: device.deviceKey },
    });
    const logins = await Promise.all(Array.from({ length: 8 }, () => pinLogin(service, company, device, PINS.login_pin)));
    expect((await removal).status).toBe(200);
    // 503: every try held by logins still in flight (busy, retry); never 18.
    for (const login of logins) expect([200, 401, 503]).toContain(login.status);
    expect(await loginPinTries(service, company, account)).toBe(0);
  });

  // A grant in steps (lib/sessions/session-grant.ts) stores the session first, then checks: whatever
  // ends sessions and lands between the two either finds the session or is found by the checks.
  const racers = {
    "the device's removal": (account: Account, deviceKey: string) =>
      removeDevice(service.app, company.company_id, account.userId, deviceKey),
    "the user's disabling": (account: Account) =>
      setStatusEndingSessions(service.app, company.company_id, account.userId, UserStatus.DISABLED),
  };
  for (const [racer, race] of Object.entries(racers)) {
    it(`leaves no session when ${racer} lands right after the grant's first write, the session's own`, async () => {
      const { account, device } = await signUpWithDevice(service, company);
      const writes: string[] = [];
      let triedPin = false;
      let raced: Promise<number> | undefined;
      let sessionPut: PutCommandInput | undefined;
      const login = await pinLoginRacedBy(device, async ({ name, input, text }) => {
        const write = /^(Put|Update|Delete|TransactWrite)/.test(name);
        if (write && triedPin && !raced) {
          writes.push(name);
          sessionPut = input as PutCommandInput;
          // The whole of it, from its reads to its last sweep, between this write and the grant's next.
          raced = race(account, device.deviceKey);
          await raced;
        }
        if (name === 'UpdateItemCommand' && text.includes('"sk":"PINTRIES#')) triedPin = true;
      });
      expect(writes).toEqual(['PutItemCommand']);
      // The registration's session and the login's: its read found the one just stored.
      expect(await raced).toBe(2);
      expectFailure(login, 401, 4);
      expect(await querySessions(service.app.table, company.company_id, account.userId)).toEqual([]);
      // Its item stays, marked ended (by the racer, which found it first), so a late copy of its put cannot revive it.
      expect((await pinSessionsOf(account)).map((item) => item.ended_reason)).toEqual([
        racer.includes('removal') ? 'device_removed' : 'disabled',
      ]);
      // A late copy of that put (an attempt the SDK gave up on, landing now) is refused.
      await expect(service.app.table.client.send(new PutCommand(sessionPut!))).rejects.toThrow(ConditionalCheckFailedException);
      expect(await querySessions(service.app.table, company.company_id, account.userId)).toEqual([]);
      expect(await loginPinTries(service, company, account)).toBe(0);
    });
  }

  it("leaves no session when a change conditioned on session_version, read before the session's put, removes the device as the grant writes (a support recovery's shape)", async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const table = service.app.table;
    // As a recovery: the user and the sessions read, the device removed later by one transaction
    // conditioned on the session_version read, with no read of the sessions after it.
    let readsDone!: () => void;
    const read = new Promise<void>((resolve) => (readsDone = resolve));
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    let rounds = 0;
    const recover = () =>
      changeEndingSessions(service.app, company.company_id, account.userId, 'recovered', async (_, version) => {
        rounds++;
        readsDone();
        await gate;
        const { index, listing } = deviceRemoveWrites(table, company.company_id, account.userId, device.deviceKey);
        return [
          {
            label: 'user',
            item: {
              ConditionCheck: {
                TableName: table.name,
                Key: userKey(company.company_id, account.userId),
                ConditionExpression: counterStillIs('session_version', ':version', version),
                ExpressionAttributeValues: { ':version': version },
              },
            },
          },
          { label: 'device', item: index },
          { label: 'device', item: listing },
        ];
      });
    let stage: 'try' | 'put' | 'next' | 'done' = 'try';
    let recovery: Promise<number> | undefined;
    const grantWrites: string[] = [];
    const login = await pinLoginRacedBy(device, async ({ name, text }) => {
      if (stage === 'try' && name === 'UpdateItemCommand' && text.includes('"sk":"PINTRIES#')) {
        stage = 'put';
        recovery = recover();
        await read;
      } else if (stage === 'put' && name === 'PutItemCommand' && text.includes(`"sk":"${SESSION_PREFIX}`)) {
        stage = 'next';
      } else if (stage === 'next' && /^(Put|Update|Delete)/.test(name)) {
        stage = 'done';
        grantWrites.push(text.includes('session_version') ? 'user' : name);
        openGate();
        await recovery;
      }
    });
    // The user's write comes right after the session's: the recovery's condition then fails, and its
    // second round finds the session; the device's write, after it, finds the device gone.
    expect(grantWrites).toEqual(['user']);
    expect(rounds).toBe(2);
    expect(await recovery).toBe(2);
    expectFailure(login, 401, 4);
    expect(await querySessions(table, company.company_id, account.userId)).toEqual([]);
    expect((await pinSessionsOf(account)).map((item) => item.ended_reason)).toEqual(['recovered']);
  });

  it('refuses the grant when its put, sent again after a lost answer, finds its own session ended meanwhile (a logout of all): 401, nothing live', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    let landed = false;
    const login = await pinLoginRacedBy(
      device,
      async ({ name, input, text }) => {
        if (landed || name !== 'PutItemCommand' || !text.includes(`"sk":"${SESSION_PREFIX}`)) return;
        landed = true;
        // As if this put's first attempt had landed and its answer was lost, then the session was ended
        // (by what reads sessions and marks them, as logout_all), and the put about to go is the retry.
        const { Item } = input as PutCommandInput;
        await service.app.table.client.send(
          new PutCommand({
            TableName: service.app.table.name,
            Item: { ...Item, ended_reason: 'logout_all', ended_at_ms: service.clock.now() },
          }),
        );
      },
      'before',
    );
    expect(landed).toBe(true);
    expectFailure(login, 401, 4);
    // The registration's session alone is live.
    expect(await querySessions(service.app.table, company.company_id, account.userId)).toHaveLength(1);
    expect((await pinSessionsOf(account)).map((item) => item.ended_reason)).toEqual(['logout_all']);
    expect(await loginPinTries(service, company, account)).toBe(0);
  });

  it('accepts a nonce once even when two requests with it arrive at once', async () => {
    const { device } = await signUpWithDevice(service, company);
    for (let round = 0; round < 5; round++) {
      const nonce = newNonce();
      const answers = await Promise.all([1, 2, 3].map(() => pinLogin(service, company, device, PINS.login_pin, { nonce })));
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401, 401]);
    }
  });

  it('refuses a user who is not active with 401; disabling ends the sessions of every device', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const answer = await pinLogin(service, company, device, PINS.login_pin);
    const pinSession = `Token ${answer.body.data.token.token}`;
    expect(await setStatusEndingSessions(service.app, company.company_id, account.userId, UserStatus.DISABLED)).toBe(2);
    expect(await tokenWorks(service, company, pinSession)).toBe(false);
    expect(await tokenWorks(service, company, account.authorization)).toBe(false);
    expectFailure(await pinLogin(service, company, device, PINS.login_pin), 401, 4);
    expect(await loginPinTries(service, company, account)).toBe(0);
  });
});
