import { randomInt, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { epochSeconds } from '../../lib/clock.js';
import { createCompany } from '../../lib/companies/companies.js';
import { readConfig } from '../../lib/config.js';
import type { HashCost } from '../../lib/secrets/hashing.js';
import { setStatusEndingSessions } from '../../lib/sessions/end-sessions.js';
import { NOTIFICATION_PREFIX, UNREAD_COUNT_PREFIX, USER_DEVICE_PREFIX, userDeviceKey, userKey } from '../../lib/store/keys.js';
import { referralCountIn } from '../../lib/store/referral-store.js';
import { UserStatus } from '../../lib/users/user-status.js';
import { AdjustableClock } from './adjustable-clock.js';
import { type AccountChange, type ChaosContext, type Registered, sleep } from './chaos/context.js';

export type { ChaosReport };

import { oneAccountRace } from './chaos/one-account-race.js';
import { type ChaosReport, emptyRaceReport } from './chaos/report.js';
import { claimCheck } from './claim-check.js';
import { type DeviceKeyPair, newDeviceKeyPair, signedLoginPin } from './device-keys.js';
import { createOwnTable, localClient } from './dynamodb-local.js';
import { localEnvironment } from './environment.js';
import { eventCheck, seenEvents } from './event-check.js';
import { startFakeEventBridge } from './eventbridge-fake.js';
import { SHARED_FAULTS, startFaultProxy } from './fault-proxy.js';
import {
  type Answer,
  codeIn,
  type EndpointName,
  type InProcessService,
  inProcessService,
  invoke,
  lambdaContext,
  randomPhoneNumber,
  sampleRegistration,
  sessionIdOf,
} from './in-process-service.js';
import { sessionCheck } from './session-check.js';
import { startFakeSns } from './sns-fake.js';
import { startStreamPoller } from './stream-poller.js';
import { identityProblems, itemId, scanItems } from './table-snapshot.js';

// Real flows under faults (issue 23): concurrent clients register (some referred, some twice,
// half with a device), send and verify codes, log in by PIN, list referrals, mark notifications
// read, log out, change their names and email (some racing for one email, some asking for an
// email another user holds), move to a new phone number (an OTP login, then a proof of the new
// number verified with that token; some racing for one number), are disabled by an operator (a few),
// remove their device, lock their login PIN with wrong PINs, ask for their account's deletion on a
// fresh OTP login (a few each), race on one account (issue 37: its deletion or disable, its move to
// a new number, a new email and OTP logins to the number it leaves, all at once;
// tests/harness/chaos/one-account-race.ts), and send hostile requests for a bounded time
// while a share of DynamoDB and SNS requests fail in every way the local tools can make. Then
// faults off, and a check of everything answered: each ambiguous request retried with its
// Idempotency-Key must come back with a definite first outcome, and the table must hold no
// partial user, no phone twice, exact referral and unread counts, and every live token must work;
// every phone and email claim held by the user whose record has it and who holds claims (active,
// or disabled with the claim marked so), and every user's claimed; no live session of a user who
// is not active, nor one begun by an OTP login to a number its user has left but the one that
// moved it (tests/harness/session-check.ts).
// Meanwhile the table's stream feeds the events' publisher, whose bus (a loopback EventBridge)
// fails a share of its calls, of its entries and of its dead-letter calls: after a drain, every
// change the table proves has its event on the bus or in the dead-letter queue, and no event names
// a change the table does not hold (tests/harness/event-check.ts).

export interface ChaosOptions {
  dynamodbEndpoint: string;
  seconds: number;
  /** Share (0-1) of DynamoDB and SNS requests that get a fault. */
  faults: number;
  clients: number;
  log?: (line: string) => void;
  /** The service's hash cost: production's unless given (the test's short run hands in a cheap one). */
  hashCost?: HashCost;
  /**
   * Races on one account to start at least (a client turns to one while fewer have started and an
   * account is free for one), beyond those drawn as one flow among the others: a short run has few.
   */
  races?: number;
}

/** Documented statuses (contract section 4). */
const DOCUMENTED = new Set([200, 400, 401, 403, 404, 409, 413, 429, 503]);

/** The most a slowed container's DynamoDB call waits before it is sent (ms). */
const SLOW_CALL_MS = 40;

/** A container whose every DynamoDB call waits up to SLOW_CALL_MS first. */
function slowed(container: InProcessService): InProcessService {
  container.app.table.client.middlewareStack.add((next) => async (args) => {
    await sleep(randomInt(0, SLOW_CALL_MS + 1));
    return next(args);
  });
  return container;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => undefined);
  const proxy = await startFaultProxy(options.dynamodbEndpoint);
  const sns = await startFakeSns();
  const tableName = await createOwnTable(options.dynamodbEndpoint, 'wallet-auth-chaos');
  const busName = 'wallet-auth-chaos';
  const eventFaults = { calls: 0, entries: 0, deadLetterCalls: 0 };
  // The bus's faults are drawn here so they can be counted: a third of the share fails whole
  // PutEvents calls (throttled, which the SDK retries too), half of it single entries, and twice it
  // (at most 90 %) the dead-letter calls, which are few (whose records then come again from the stream).
  const bus = await startFakeEventBridge({
    busName,
    faults: {
      failEntry: () => {
        if (!faultsOn || Math.random() >= options.faults / 2) return undefined;
        eventFaults.entries++;
        return Math.random() < 0.5 ? 'ThrottlingException' : 'InternalFailure';
      },
    },
  });
  const config = readConfig(
    localEnvironment({
      stage: 'chaos',
      tableName,
      dynamodbEndpoint: proxy.endpoint,
      outboxFile: join(tmpdir(), `chaos-outbox-${randomUUID()}.jsonl`),
      logLevel: process.env.CHAOS_LOG_LEVEL ?? 'SILENT',
      settings: {
        SMS_SENDER: 'sns',
        SNS_ENDPOINT: sns.endpoint,
        COMPANY_CACHE_SECONDS: '0',
        OTP_SENDS_PER_ADDRESS_PER_HOUR: '0',
        OTP_VERIFIES_PER_ADDRESS: '0',
        OTP_SENDS_PER_PREFIX_PER_HOUR: '0',
        OTP_SENDS_PER_COMPANY_PER_HOUR: '100000',
        SMS_DECOY_PRIOR_MEDIAN_MS: '2',
        SMS_DECOY_PRIOR_P90_MS: '5',
        EVENT_BUS_NAME: busName,
        EVENTBRIDGE_ENDPOINT: bus.endpoint,
        EVENTS_DLQ_URL: bus.queueUrl,
        // Two puts of an entry before its dead letter: some entries reach the queue under faults.
        EVENTS_MAX_ATTEMPTS: '2',
      },
    }),
  );
  const service = inProcessService(config, { hashCost: options.hashCost });
  const direct = DynamoDBDocumentClient.from(localClient(options.dynamodbEndpoint));
  const company = await createCompany(service.app.table, service.clock, `chaos ${randomInt(1e9)}`);
  // Racers for one new number each need a code sent to it, and a phone gets one code per interval:
  // the second and third racer's codes go through containers of the same deployment whose clocks
  // run one and two intervals ahead (proofs and tokens live far longer than that); the logins to a
  // number being left (a race on one account) through those one, two and three intervals ahead.
  // Their DynamoDB calls, and those of one more container on the service's clock, each wait a few
  // ms first (a busier container): a race's requests then interleave inside each other's reads
  // and writes, not only one after another.
  const interval = config.otp.sendIntervalSeconds + 1;
  const ahead: InProcessService[] = [1, 2, 3].map((step) => {
    const clock = new AdjustableClock();
    clock.advance(step * interval);
    return slowed(inProcessService(config, { hashCost: options.hashCost, clock }));
  });
  const slow = slowed(inProcessService(config, { hashCost: options.hashCost, clock: service.clock }));
  const report: ChaosReport = {
    requests: 0,
    byStatus: {},
    faultsByKind: {},
    smsAnswersDropped: 0,
    registrations: 0,
    ambiguousRetried: 0,
    verified: 0,
    pinLogins: 0,
    marksRead: 0,
    profileUpdates: 0,
    emailChanges: 0,
    emailRaces: 0,
    takenEmailRefusals: 0,
    phoneChangesSent: 0,
    phoneChanges: 0,
    phoneRaces: 0,
    phoneChangesRerun: 0,
    accountChangesRetried: 0,
    disabled: 0,
    disablesRetried: 0,
    deletions: 0,
    deletionsRetried: 0,
    devicesRemoved: 0,
    deviceRemovalsRetried: 0,
    pinLocks: 0,
    pinLocksRetried: 0,
    race: emptyRaceReport(),
    claims: { phoneClaims: 0, emailClaims: 0, holders: 0, problems: 0 },
    sessions: { otpLogins: 0, live: 0, problems: 0 },
    events: {
      putEventsCalls: 0,
      deadLetterCalls: 0,
      faults: eventFaults,
      batches: 0,
      batchesHandedAgain: 0,
      givenUp: 0,
      drainSeconds: 0,
      received: 0,
      distinct: 0,
      deadLettered: 0,
      byType: {},
      proven: { users: 0, sessionsEnded: 0, devices: 0, phoneChanges: 0, statuses: 0, profileUpdates: 0, pinLocks: 0 },
      problems: 0,
    },
    wrong: [],
  };
  const wrong = (what: string, answer?: Answer) => {
    report.wrong.push(`${what}${answer ? `: ${answer.status} ${JSON.stringify(answer.body)}` : ''}`);
    log(`WRONG ${report.wrong.at(-1)}`);
  };

  let faultsOn = true;
  proxy.lateMs = config.dynamodbTimeoutMs + 300;
  proxy.rule = () => {
    if (!faultsOn || Math.random() >= options.faults) return 'pass';
    const mode = SHARED_FAULTS[randomInt(SHARED_FAULTS.length)]!;
    report.faultsByKind[mode] = (report.faultsByKind[mode] ?? 0) + 1;
    return mode;
  };
  // Whole calls fail by the fake's "next N calls" knobs, read as getters: the fake reads a knob
  // while it answers a call (its count already up), so each call is decided once, here, and counted.
  const perCall = (calls: () => number, share: number, kind: 'calls' | 'deadLetterCalls') => {
    let decidedFor = 0;
    let fail = 0;
    return {
      get: () => {
        if (calls() !== decidedFor) {
          decidedFor = calls();
          fail = faultsOn && Math.random() < share ? 1 : 0;
          eventFaults[kind] += fail;
        }
        return fail;
      },
      set: () => {},
    };
  };
  Object.defineProperty(
    bus.faults,
    'failNextCalls',
    perCall(() => bus.calls.putEvents, options.faults / 3, 'calls'),
  );
  Object.defineProperty(
    bus.faults,
    'failNextDeadLetterCalls',
    perCall(() => bus.calls.deadLetter, Math.min(0.9, options.faults * 2), 'deadLetterCalls'),
  );
  const publish = service.streamed.eventsPublish;
  const poller = await startStreamPoller({
    endpoint: options.dynamodbEndpoint,
    tableName,
    consumer: async (event) => {
      report.events.batches++;
      try {
        const answer = await publish(event, lambdaContext(30_000));
        if (answer?.batchItemFailures.length) report.events.batchesHandedAgain++;
        return answer;
      } catch (error) {
        report.events.batchesHandedAgain++;
        throw error;
      }
    },
    idleMs: 50,
    retryBaseMs: 20,
    retryMaxMs: 500,
    maxAttempts: 1000,
    onGiveUp: (records) => {
      report.events.givenUp += records.length;
    },
    log,
  });
  sns.dropAnswer = () => {
    const drop = faultsOn && Math.random() < options.faults;
    if (drop) report.smsAnswersDropped++;
    return drop;
  };

  const call = async (
    name: EndpointName,
    body: unknown,
    headers: Record<string, string> = {},
    method = 'POST',
    via: InProcessService = service,
  ): Promise<Answer> => {
    const answer = await invoke(via.handlers[name], {
      method,
      path: `/${name}`,
      headers: { CompanyID: company.company_id, ...headers },
      body,
    });
    report.requests++;
    report.byStatus[answer.status] = (report.byStatus[answer.status] ?? 0) + 1;
    const envelope = answer.body && (answer.body.success === 1 || answer.body.success === 0) && Array.isArray(answer.body.error);
    if (!DOCUMENTED.has(answer.status) || !envelope) wrong(`${name} answered outside the envelope or documented statuses`, answer);
    return answer;
  };
  /** An answer that says nothing of the outcome: 503, or 409 code 20 (its first request still at work). */
  const isAmbiguous = (answer: Answer) => answer.status === 503 || (answer.status === 409 && answer.body.error[0] === 20);
  /** Sends a request with its key until it has a definite answer: 503 and 409 code 20 (first still at work) are not. */
  const untilDefinite = async (send: () => Promise<Answer>, rounds: number): Promise<Answer> => {
    let answer = await send();
    for (let round = 0; round < rounds && isAmbiguous(answer); round++) {
      await sleep(Math.max(200, Number(answer.headers['retry-after'] ?? 0) * 1000 * Math.random()));
      answer = await send();
    }
    return answer;
  };

  const endAt = Date.now() + options.seconds * 1000;
  const registered: Registered[] = [];
  const ambiguous: { body: Record<string, unknown>; key: string; referredBy?: string; keys?: DeviceKeyPair }[] = [];
  /** A registered account from its registration's answer. */
  const account = (
    data: any,
    body: Record<string, unknown>,
    referredBy: string | undefined,
    keys: DeviceKeyPair | undefined,
  ): Registered => ({
    userId: data.user_id,
    referralCode: data.referral_code,
    token: data.token.token,
    referredBy,
    loggedOut: false,
    device: keys && data.device_key ? { privateKey: keys.privateKey, deviceKey: data.device_key } : undefined,
    loginPin: String(body.login_pin),
    wrongPins: 0,
    tokenOnDevice: Boolean(keys && data.device_key),
    phone: String(body.phone_number),
    email: typeof body.email === 'string' ? body.email.toLowerCase() : undefined,
    quietAfter: 0,
  });
  /** No client uses the account, and it is not waiting for a retry nor ended. */
  const isFree = (account: Registered) => !account.inUse && !account.parked && !account.disabled && !account.deleted;
  /** An account no other client is using, marked as in use until `flow` ends. */
  const withAccount = async (eligible: (account: Registered) => boolean, flow: (account: Registered) => Promise<void>) => {
    const free = registered.filter((account) => isFree(account) && eligible(account));
    const picked = free[randomInt(Math.max(1, free.length))];
    if (!picked) return;
    picked.inUse = true;
    try {
      await flow(picked);
    } finally {
      picked.inUse = false;
    }
  };
  /** Up to `count` (at least 1) accounts no other client is using, held until `flow` ends. */
  const withAccounts = async (
    count: number,
    eligible: (account: Registered) => boolean,
    flow: (accounts: Registered[]) => Promise<void>,
  ) => {
    const free = registered.filter((account) => isFree(account) && eligible(account));
    const picked: Registered[] = [];
    while (picked.length < count && free.length) picked.push(free.splice(randomInt(free.length), 1)[0]!);
    if (!picked.length) return;
    for (const account of picked) account.inUse = true;
    try {
      await flow(picked);
    } finally {
      for (const account of picked) account.inUse = false;
    }
  };

  const register = async () => {
    const referrer = registered.length && Math.random() < 0.5 ? registered[randomInt(registered.length)] : undefined;
    // Half bind a device, for PIN logins later.
    const keys = Math.random() < 0.5 ? newDeviceKeyPair() : undefined;
    const body = sampleRegistration({
      referral_code: referrer?.referralCode,
      parent_user_id: undefined,
      ...(keys ? { device_public_key: keys.publicKey } : {}),
    });
    const key = randomUUID();
    const answer = await call('userRegister', body, { 'Idempotency-Key': key });
    report.registrations++;
    if (answer.status === 200) {
      // A duplicate without a key: never a second user. Sent before the account is shared with the
      // other clients: a deletion of it in between would free its phone for the duplicate.
      const duplicate = await call('userRegister', body);
      if (duplicate.status !== 409 && duplicate.status !== 503) wrong('a duplicate registration was not refused', duplicate);
      registered.push(account(answer.body.data, body, referrer?.userId, keys));
    } else if (isAmbiguous(answer)) {
      ambiguous.push({ body, key, referredBy: referrer?.userId, keys });
    } else {
      wrong('a fresh registration was refused', answer);
    }
  };

  const sendAndVerify = async () => {
    const phone = randomPhoneNumber();
    const target = { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 };
    const sendKey = randomUUID();
    const sent = await untilDefinite(() => call('loginPhone', target, { 'Idempotency-Key': sendKey }), 3);
    if (sent.status !== 200) {
      // 409 code 20: the first run's record is still held (its release failed too): come back later, as Retry-After says.
      if (sent.status !== 503 && sent.status !== 429 && !(sent.status === 409 && sent.body.error[0] === 20))
        wrong('a send was refused', sent);
      return;
    }
    const message = sns.published.filter((sms) => sms.phoneNumber === `+1${phone}`).at(-1)?.message;
    if (!message) return wrong('a send answered 200 with no SMS');
    const code = codeIn(message);
    const verifyKey = randomUUID();
    const verified = await untilDefinite(() => call('verifyOtp', { ...target, otp: code }, { 'Idempotency-Key': verifyKey }), 3);
    if (verified.status === 200) report.verified++;
    else if (verified.status === 400) wrong('the right code was refused', verified);
  };

  // One client at a time per account: another client's logout would make this one's 401 right.
  const listAndLogout = () => withAccount((account) => !account.loggedOut, listOrLogout);

  /** A PIN login on the account's device with its own key, retried with it up to `rounds` times. */
  const sendPin = (account: Registered, pin: string, rounds: number) => {
    const body = signedLoginPin(account.device!, company.company_id, pin, { timestamp: epochSeconds(service.clock) });
    const key = randomUUID();
    return untilDefinite(() => call('loginPin', body, { 'Idempotency-Key': key }), rounds);
  };
  const wrongPinOf = (account: Registered) => (account.loginPin === '0000' ? '1111' : '0000');

  /** A PIN login on the account's device, retried with its key: the right PIN is never refused; now and then a wrong one first. */
  const pinLogin = () =>
    withAccount(
      (account) => account.device !== undefined && !account.pinLocked,
      async (account) => {
        const login = (pin: string) => sendPin(account, pin, 3);
        if (account.wrongPins < 2 && Math.random() < 0.2) {
          account.wrongPins++;
          const refused = await login(wrongPinOf(account));
          // 503, or 409 code 20 (its first run still held): its outcome is unknown.
          if (!isAmbiguous(refused) && !(refused.status === 400 && refused.body.error[0] === 17))
            wrong('a wrong PIN was not answered 17', refused);
        }
        const answer = await login(account.loginPin);
        if (answer.status === 200) {
          report.pinLogins++;
          account.wrongPins = 0;
          account.token = answer.body.data.token.token;
          account.tokenOnDevice = true;
          account.loggedOut = false;
        } else if (!isAmbiguous(answer)) {
          wrong('the right PIN was refused', answer);
        }
      },
    );

  /** Every notification marked read, retried with its key. */
  const readAll = () =>
    withAccount(
      (account) => !account.loggedOut,
      async (account) => {
        const key = randomUUID();
        const answer = await untilDefinite(
          () => call('notificationsRead', { all: 1 }, { Authorization: `Token ${account.token}`, 'Idempotency-Key': key }),
          3,
        );
        if (answer.status === 200) report.marksRead++;
        else if (!isAmbiguous(answer)) wrong('marking read was refused', answer);
      },
    );

  const listOrLogout = async (account: Registered) => {
    const list = await call('referralProgram', undefined, { Authorization: `Token ${account.token}` }, 'GET');
    if (list.status === 401 && !account.loggedOut) wrong('a live token was refused', list);
    if (Math.random() < 0.2) {
      const out = await call('logout', {}, { Authorization: `Token ${account.token}`, 'Idempotency-Key': randomUUID() });
      if (out.status === 200) account.loggedOut = true;
      // A logout answered 503 may have ended the session: the token's state is unknown from here.
      else if (out.status === 503) account.loggedOut = true;
      else wrong('a logout was refused', out);
    }
  };

  const hostile = async () => {
    const cases: [() => Promise<Answer>, number][] = [
      [() => call('userRegister', '{"broken', {}), 400],
      [() => call('userRegister', sampleRegistration(), { CompanyID: 'nope' }), 400],
      [() => call('referralProgram', undefined, { Authorization: 'Token forged' }, 'GET'), 401],
      [() => call('userRegister', sampleRegistration(), { 'Idempotency-Key': ' spaced key ' }), 400],
    ];
    const [send, status] = cases[randomInt(cases.length)]!;
    const answer = await send();
    if (answer.status !== status && answer.status !== 503) wrong(`a hostile request answered ${answer.status}, not ${status}`, answer);
  };

  // The account (issue 30): profile updates and phone changes, some racing for one value.
  const isTaken = (answer: Answer) => answer.status === 409 && answer.body.error[0] === 7;
  const pendingChanges: (AccountChange & { key: string; authorization: string })[] = [];
  /** Races for one value: more than one 200 among their answers (in the run or on retry) is wrong. */
  const races: { what: string; winners: number }[] = [];
  /**
   * Sends the changes side by side, each retried with its key. With any still ambiguous, every
   * account taking part is parked (its email or phone unknown, the value it raced for undecided)
   * until its retry after the run.
   */
  const changeAll = async (changes: AccountChange[], taking: Registered[]) => {
    let undecided = false;
    await Promise.all(
      changes.map(async (change) => {
        const key = randomUUID();
        const authorization = `Token ${change.account.token}`;
        const answer = await untilDefinite(
          () => call(change.name, change.body, { Authorization: authorization, 'Idempotency-Key': key }),
          1,
        );
        if (!isAmbiguous(answer)) return change.settle(answer);
        undecided = true;
        pendingChanges.push({ ...change, key, authorization });
      }),
    );
    if (undecided) for (const account of taking) account.parked = true;
  };
  /** Users answered 200 to a profile update: each has its user.profile_updated (the table cannot show it). */
  const profileUpdated = new Set<string>();
  const freshEmail = () => `chaos.${randomUUID().slice(0, 13)}@example.com`;

  /** Names, and half the time a new email no one else wants. */
  const updateProfile = () =>
    withAccount(
      (account) => !account.loggedOut,
      async (account) => {
        const email = Math.random() < 0.5 ? freshEmail() : undefined;
        const body = { first_name: `Ada ${randomInt(1000)}`, last_name: `King ${randomInt(1000)}`, ...(email ? { email } : {}) };
        await changeAll(
          [
            {
              account,
              name: 'userProfileUpdate',
              body,
              settle: (answer) => {
                if (answer.status !== 200) return wrong('a profile update was refused', answer);
                report.profileUpdates++;
                profileUpdated.add(account.userId);
                if (!email) return;
                report.emailChanges++;
                account.email = email;
              },
            },
          ],
          [account],
        );
      },
    );

  /** 2 or 3 users ask for one free email at once (one wins, the others 409 code 7), or for an email one of them holds (all 409 code 7). */
  const emailRace = () =>
    withAccounts(
      randomInt(2, 4),
      (account) => !account.loggedOut && account.email !== undefined,
      async (accounts) => {
        if (accounts.length < 2) return;
        if (Math.random() < 0.3) {
          const [holder, ...askers] = accounts as [Registered, ...Registered[]];
          const settle = (answer: Answer) => {
            if (isTaken(answer)) report.takenEmailRefusals++;
            else wrong('an email another user holds was not refused 409 code 7', answer);
          };
          await changeAll(
            askers.map((account) => ({ account, name: 'userProfileUpdate', body: { email: holder.email }, settle })),
            accounts,
          );
          return;
        }
        report.emailRaces++;
        const email = freshEmail();
        const race = { what: `email ${email}`, winners: 0 };
        races.push(race);
        await changeAll(
          accounts.map((account) => ({
            account,
            name: 'userProfileUpdate',
            body: { first_name: 'Racer', email },
            settle: (answer) => {
              if (answer.status === 200) {
                race.winners++;
                report.profileUpdates++;
                profileUpdated.add(account.userId);
                report.emailChanges++;
                account.email = email;
              } else if (!isTaken(answer)) wrong('a racer for a free email was answered neither 200 nor 409 code 7', answer);
            },
          })),
          accounts,
        );
      },
    );

  /** The code last sent to a number, through the SNS fake. */
  const lastCode = (phone: string) => sns.published.filter((sms) => sms.phoneNumber === `+1${phone}`).at(-1)?.message;
  /**
   * A code sent to a number and verified, each retried with its key (`rounds` times again, 2 unless
   * told): the verification's answer, or undefined. None is sent past the run's end, unless told.
   */
  const sendAndCheck = async (
    target: Record<string, unknown>,
    headers: Record<string, string>,
    via: InProcessService,
    { pastTheEnd = false, rounds = 2 }: { pastTheEnd?: boolean; rounds?: number } = {},
  ) => {
    if (Date.now() >= endAt && !pastTheEnd) return undefined;
    const sendKey = randomUUID();
    const sent = await untilDefinite(() => call('loginPhone', target, { ...headers, 'Idempotency-Key': sendKey }, 'POST', via), rounds);
    if (sent.status !== 200) {
      if (sent.status !== 429 && !isAmbiguous(sent)) wrong(`a code (otp_type ${target.otp_type}) was not sent`, sent);
      return undefined;
    }
    const message = lastCode(String(target.phone_number));
    if (!message) return void wrong('a send answered 200 with no SMS');
    const verifyKey = randomUUID();
    const verified = await untilDefinite(
      () => call('verifyOtp', { ...target, otp: codeIn(message) }, { ...headers, 'Idempotency-Key': verifyKey }, 'POST', via),
      rounds,
    );
    if (verified.status === 200) return verified;
    if (verified.status === 400) wrong(`the right code (otp_type ${target.otp_type}) was refused`, verified);
    return undefined;
  };

  /** Which sessions OTP logins were answered, with the number each logged in to, and which session sent each phone change. */
  const answered: ChaosContext['answered'] = { otpLogins: [], phoneChanges: [] };
  const recordOtpLogin = (login: Answer, phoneE164: string) => {
    const sid = sessionIdOf(`Token ${login.body.data.token.token}`);
    answered.otpLogins.push({ sid, userId: login.body.data.user_id, phoneE164 });
  };
  /** An OTP login to the account's phone answered 200: a token bound to no device, and the login PIN's tries cleared (a lock opened). */
  const loggedInByOtp = (account: Registered, login: Answer) => {
    recordOtpLogin(login, `+1${account.phone}`);
    account.token = login.body.data.token.token;
    account.tokenOnDevice = false;
    account.loggedOut = false;
    account.pinLocked = false;
    account.wrongPins = 0;
  };

  /**
   * 1 to 3 users move to one new number: each logs in by OTP (the fresh proof of the holder), then
   * proves the number with that token (each racer's code through a clock one interval further on),
   * then all change at once: one wins, the others 409 code 7.
   */
  const phoneChange = () =>
    withAccounts(
      Math.random() < 0.6 ? randomInt(2, 4) : 1,
      (account) => account.quietAfter <= service.clock.now(),
      async (accounts) => {
        const fresh = new Set<Registered>();
        await Promise.all(
          accounts.map(async (account) => {
            account.quietAfter = service.clock.now() + interval * 1000;
            const target = { dial_code: '+1', phone_number: account.phone, user_type: 2, otp_type: 1 };
            const login = await sendAndCheck(target, {}, service);
            if (!login) return;
            loggedInByOtp(account, login);
            fresh.add(account);
          }),
        );
        const number = randomPhoneNumber();
        const race = { what: `phone ${number}`, winners: 0 };
        const proven: AccountChange[] = [];
        // In order: each racer's send is one interval after the one before it, on its clock.
        for (const [index, account] of accounts.entries()) {
          if (!fresh.has(account)) continue;
          const via = index === 0 ? service : ahead[index - 1]!;
          const target = { dial_code: '+1', phone_number: number, user_type: 2, otp_type: 2 };
          const verified = await sendAndCheck(target, { Authorization: `Token ${account.token}` }, via);
          if (!verified) continue;
          const body = { dial_code: '+1', phone_number: number, phone_verification_token: verified.body.data.verification_token };
          answered.phoneChanges.push({ sid: sessionIdOf(`Token ${account.token}`), userId: account.userId, toE164: `+1${number}` });
          proven.push({
            account,
            name: 'userPhoneChange',
            body,
            settle: (answer) => {
              // A change whose commit was answered 503 runs afresh on its retry (nothing ties the
              // write to its key, as registered_by_request does a registration's): it then finds the
              // number already the account's. Counted, so the report shows it; the table decides.
              const movedBefore = answer.status === 400 && answer.body.data?.errors?.[0]?.detail === 'is already this account’s number';
              if (movedBefore) report.phoneChangesRerun++;
              if (answer.status === 200 || movedBefore) {
                race.winners++;
                report.phoneChanges++;
                account.phone = number;
                // The new number had its last code on the furthest clock.
                account.quietAfter = service.clock.now() + (accounts.length + 1) * interval * 1000;
              } else if (!(isTaken(answer) && proven.length > 1)) wrong('a phone change with both proofs was refused', answer);
            },
          });
        }
        if (!proven.length) return;
        report.phoneChangesSent += proven.length;
        if (proven.length > 1) report.phoneRaces++;
        races.push(race);
        await changeAll(proven, accounts);
      },
    );

  /**
   * An operator disables a user, as user:disable does (status 2, every session ended in the same
   * transaction): one in ten accounts at most, so the other flows keep theirs. One that fails under
   * faults is run again once they are off (disabling a disabled user changes nothing).
   */
  const pendingDisables: Registered[] = [];
  const disableUser = async (account: Registered, via = service) => {
    account.disabled = true;
    account.loggedOut = true;
    try {
      await setStatusEndingSessions(via.app, company.company_id, account.userId, UserStatus.DISABLED);
      report.disabled++;
      return true;
    } catch {
      pendingDisables.push(account);
      return false;
    }
  };
  const disable = () =>
    withAccount(
      () => report.disabled + pendingDisables.length < registered.length / 10,
      async (account) => void (await disableUser(account)),
    );

  /**
   * The holder asks for the account's deletion (contract 3.11) on a fresh OTP login: status 4 with
   * its erase_after, its sessions ended and devices removed at once. One in ten accounts at most;
   * from the ask on no flow uses the account. One answered 503 is sent again with its key after.
   */
  const deletions: { account: Registered; eraseAfter?: number }[] = [];
  const pendingDeletions: { account: Registered; key: string; authorization: string }[] = [];
  const deleteAccount = () =>
    withAccount(
      (account) => account.quietAfter <= service.clock.now() && deletions.length + pendingDeletions.length < registered.length / 10,
      async (account) => {
        account.quietAfter = service.clock.now() + interval * 1000;
        const login = await sendAndCheck({ dial_code: '+1', phone_number: account.phone, user_type: 2, otp_type: 1 }, {}, service);
        if (!login) return;
        loggedInByOtp(account, login);
        const key = randomUUID();
        const authorization = `Token ${account.token}`;
        // Sent once: one that committed before its 503 ended the session it is sent with, so its
        // retry answers 401 (retried after the faults, below, where that is taken as done).
        const answer = await call('userDelete', {}, { Authorization: authorization, 'Idempotency-Key': key });
        if (isAmbiguous(answer)) pendingDeletions.push({ account, key, authorization });
        else if (answer.status === 200) deletions.push({ account, eraseAfter: answer.body.data.erase_after });
        else return wrong('a deletion on a fresh OTP login was refused', answer);
        account.deleted = true;
        account.loggedOut = true;
        account.device = undefined;
      },
    );

  /**
   * A user removes their device (contract 3.6), retried with its key: the sessions bound to it end
   * (the token too, when it is one of them). At most one in four devices still bound, so PIN logins
   * keep some. The device is forgotten at once (a 503 may have removed it); one answered 503 parks
   * the account until it is sent again with its key after.
   */
  const removals: { account: Registered; deviceKey: string }[] = [];
  const pendingRemovals: { account: Registered; deviceKey: string; key: string; authorization: string }[] = [];
  const removeDevice = () =>
    withAccount(
      (account) =>
        account.device !== undefined &&
        !account.loggedOut &&
        removals.length + pendingRemovals.length < registered.filter((each) => each.device).length / 4,
      async (account) => {
        const deviceKey = account.device!.deviceKey;
        const key = randomUUID();
        const authorization = `Token ${account.token}`;
        // Sent once, as a deletion is: a removal that committed before its 503 may have ended the
        // session it is sent with (its token on the device), and its retry then answers 401.
        const answer = await call('devicesRemove', { device_key: deviceKey }, { Authorization: authorization, 'Idempotency-Key': key });
        account.device = undefined;
        if (isAmbiguous(answer)) {
          pendingRemovals.push({ account, deviceKey, key, authorization });
          account.parked = true;
          account.loggedOut = true;
        } else if (answer.status === 200) {
          removals.push({ account, deviceKey });
          if (account.tokenOnDevice) account.loggedOut = true;
        } else wrong('removing the account’s own device was refused', answer);
      },
    );

  /**
   * Wrong PINs on the account's device until the lock answers 18: each before it 17, and never more
   * of them than the lock's limit (each holds one of its tries). 'unseen' when faults hid the lock.
   */
  const isLocked = (answer: Answer) => answer.status === 400 && answer.body.error[0] === 18;
  const wrongUntilLocked = async (account: Registered, rounds: number): Promise<'locked' | 'unseen' | 'wrong'> => {
    let compared = 0;
    for (let sent = 0; sent < config.pinMaxFailures + 3; sent++) {
      const answer = await sendPin(account, wrongPinOf(account), rounds);
      if (isLocked(answer)) return 'locked';
      if (isAmbiguous(answer)) continue;
      const problem = !(answer.status === 400 && answer.body.error[0] === 17)
        ? 'a wrong PIN was answered neither 17 nor 18'
        : ++compared > config.pinMaxFailures && `a login PIN compared ${compared} wrong PINs and did not lock`;
      if (problem) {
        wrong(problem, answer);
        return 'wrong';
      }
    }
    return 'unseen';
  };
  /** Once locked, the right PIN is refused 18 as well: nothing is compared. */
  const rightPinRefused = async (account: Registered, rounds: number) => {
    const answer = await sendPin(account, account.loginPin, rounds);
    if (!isAmbiguous(answer) && !isLocked(answer)) wrong('a locked login PIN was not answered 18 to the right PIN', answer);
  };
  /**
   * Locks the login PIN by wrong PINs (contract 3.6): one in ten accounts at most. A lock whose
   * answers faults kept from view is sought again after them, the account parked until then.
   */
  const pendingLocks: Registered[] = [];
  const lockPin = () =>
    withAccount(
      (account) => account.device !== undefined && !account.pinLocked && report.pinLocks + pendingLocks.length < registered.length / 10,
      async (account) => {
        account.pinLocked = true;
        const outcome = await wrongUntilLocked(account, 3);
        if (outcome === 'wrong') return;
        if (outcome === 'unseen') {
          pendingLocks.push(account);
          account.parked = true;
          return;
        }
        report.pinLocks++;
        await rightPinRefused(account, 3);
      },
    );

  const context: ChaosContext = {
    config,
    companyId: company.company_id,
    service,
    ahead,
    slow,
    interval,
    sns,
    report,
    endAt,
    registered,
    wrong,
    log,
    call,
    isAmbiguous,
    untilDefinite,
    isFree,
    withAccount,
    sendAndCheck,
    loggedInByOtp,
    recordOtpLogin,
    answered,
    freshEmail,
    profileUpdated,
    pendingChanges,
    deletions,
    pendingDeletions,
    disableUser,
  };
  const raceOnOneAccount = oneAccountRace(context, { atLeast: options.races ?? 0 });

  // A phone change needs five requests to go through (two codes sent and verified, then the change),
  // and a race on one account as many before it starts: each twice the weight.
  const flows = [
    register,
    register,
    sendAndVerify,
    listAndLogout,
    pinLogin,
    readAll,
    hostile,
    updateProfile,
    emailRace,
    phoneChange,
    phoneChange,
    disable,
    deleteAccount,
    removeDevice,
    lockPin,
    raceOnOneAccount.flow,
    raceOnOneAccount.flow,
  ];
  await Promise.all(
    Array.from({ length: options.clients }, async () => {
      while (Date.now() < endAt) {
        try {
          // The races asked for come first, once there is an account for one.
          await (raceOnOneAccount.wanted() ? raceOnOneAccount.flow : flows[randomInt(flows.length)]!)();
        } catch (error) {
          wrong(`a flow threw: ${(error as Error).message}`);
        }
      }
    }),
  );

  // Faults off: every ambiguous registration, retried with its key, has a definite first outcome.
  faultsOn = false;
  // Work cut off by its deadline or held in flight ends first.
  await sleep(config.dynamodbTimeoutMs + 500);
  for (const { body, key, referredBy, keys } of ambiguous) {
    report.ambiguousRetried++;
    const answer = await untilDefinite(() => call('userRegister', body, { 'Idempotency-Key': key }), 20);
    if (answer.status !== 200) {
      wrong('an ambiguous registration retried with its key did not register', answer);
      continue;
    }
    const retried = account(answer.body.data, body, referredBy, keys);
    registered.push(retried);
    if (keys && !retried.device) wrong('an ambiguous registration with a device came back without its device_key', answer);
    const again = await call('userRegister', body, { 'Idempotency-Key': key });
    if (again.body.data?.user_id !== retried.userId) wrong('a replay answered another user', again);
  }

  // Every ambiguous profile update and phone change, retried with its key, has a definite outcome.
  for (const change of pendingChanges) {
    report.accountChangesRetried++;
    const answer = await untilDefinite(
      () => call(change.name, change.body, { Authorization: change.authorization, 'Idempotency-Key': change.key }),
      20,
    );
    if (isAmbiguous(answer)) wrong(`an ambiguous ${change.name} retried with its key had no definite outcome`, answer);
    else change.settle(answer);
    change.account.parked = false;
  }
  await raceOnOneAccount.afterFaults();
  for (const account of pendingDisables) {
    report.disablesRetried++;
    try {
      await setStatusEndingSessions(service.app, company.company_id, account.userId, UserStatus.DISABLED);
      report.disabled++;
    } catch (error) {
      wrong(`disabling user ${account.userId} failed with faults off: ${(error as Error).message}`);
    }
  }
  for (const race of races) if (race.winners > 1) wrong(`${race.winners} users were answered 200 for ${race.what}`);
  // A deletion or removal retried with its key: 401 when its first run committed (ending the
  // session it sends), 404 for a removal whose first run removed the device. The table decides below.
  for (const { account, key, authorization } of pendingDeletions) {
    report.deletionsRetried++;
    const answer = await untilDefinite(() => call('userDelete', {}, { Authorization: authorization, 'Idempotency-Key': key }), 20);
    if (answer.status === 200) deletions.push({ account, eraseAfter: answer.body.data.erase_after });
    else if (answer.status === 401) deletions.push({ account });
    else wrong('an ambiguous deletion retried with its key neither deleted nor found it done', answer);
  }
  for (const removal of pendingRemovals) {
    report.deviceRemovalsRetried++;
    const answer = await untilDefinite(
      () =>
        call('devicesRemove', { device_key: removal.deviceKey }, { Authorization: removal.authorization, 'Idempotency-Key': removal.key }),
      20,
    );
    if ([200, 401, 404].includes(answer.status)) removals.push(removal);
    else wrong('an ambiguous device removal retried with its key neither removed it nor found it gone', answer);
    removal.account.parked = false;
  }
  // A lock whose mark a fault lost answers 503 (tries in flight) until its tries are old: sought till then.
  const triesOldMs = (config.functionTimeoutMs + config.dynamodbTimeoutMs + 5000) * 1.5;
  await Promise.all(
    pendingLocks.map(async (account) => {
      report.pinLocksRetried++;
      const until = Date.now() + triesOldMs;
      let outcome = await wrongUntilLocked(account, 20);
      while (outcome === 'unseen' && Date.now() < until) {
        await sleep(1000);
        outcome = await wrongUntilLocked(account, 20);
      }
      if (outcome === 'unseen') wrong(`user ${account.userId}'s login PIN did not lock after its wrong PINs`);
      else if (outcome === 'locked') {
        report.pinLocks++;
        await rightPinRefused(account, 20);
      }
      account.parked = false;
    }),
  );

  const items = await scanItems(direct, tableName, company.company_id);
  const claims = claimCheck(items, company.company_id);
  report.claims = {
    phoneClaims: claims.phoneClaims,
    emailClaims: claims.emailClaims,
    holders: claims.holders,
    problems: claims.problems.length,
  };
  for (const problem of claims.problems) wrong(`claims: ${problem}`);
  for (const problem of identityProblems(items, company.company_id)) wrong(`stored: ${problem}`);
  const sessions = sessionCheck(items, company.company_id, answered, service.clock.now() / 1000);
  report.sessions = { otpLogins: sessions.otpLogins, live: sessions.live, problems: sessions.problems.length };
  for (const problem of sessions.problems) wrong(`sessions: ${problem}`);
  const users = items.filter((item) => item.sk === 'PROFILE');
  const phones = new Set(users.map((user) => `${user.phone_e164}#${user.user_type}`));
  if (phones.size !== users.length) wrong(`${users.length} users hold ${phones.size} phones`);
  const answeredIds = new Set(registered.map((account) => account.userId));
  for (const user of users) if (!answeredIds.has(user.user_id)) wrong(`user ${user.user_id} is stored but was never answered`);
  // Deletions answered are stored (status 4, the erase_after answered), and no other user is deleted.
  report.deletions = deletions.length;
  const deletedIds = new Set(deletions.map(({ account }) => account.userId));
  for (const { account, eraseAfter } of deletions) {
    const user = users.find((item) => item.user_id === account.userId);
    if (Number(user?.status_id) !== UserStatus.DELETION_REQUESTED)
      wrong(`user ${account.userId} was deleted but is of status ${user?.status_id}`);
    else if (eraseAfter !== undefined && user?.erase_after !== eraseAfter)
      wrong(`user ${account.userId} was answered erase_after ${eraseAfter}, stores ${user?.erase_after}`);
  }
  for (const user of users)
    if (Number(user.status_id) === UserStatus.DELETION_REQUESTED && !deletedIds.has(user.user_id))
      wrong(`user ${user.user_id} is deleted but no deletion was answered`);
  // Devices answered removed are listed no more.
  report.devicesRemoved = removals.length;
  const listed = new Set(items.filter((item) => item.sk.startsWith(USER_DEVICE_PREFIX)).map(itemId));
  for (const { account, deviceKey } of removals) {
    if (listed.has(itemId(userDeviceKey(company.company_id, account.userId, deviceKey))))
      wrong(`user ${account.userId}'s device ${deviceKey} was answered removed but is still listed`);
  }
  for (const account of registered) {
    const user = users.find((item) => item.user_id === account.userId);
    if (!user) wrong(`user ${account.userId} was answered 200 but is not stored`);
    // The phone and email last answered are the ones stored.
    if (user && !account.uncertain && (user.phone_number !== account.phone || (user.email ?? undefined) !== account.email))
      wrong(`user ${account.userId} stores ${user.phone_number} and ${user.email}, answered ${account.phone} and ${account.email}`);
    const referred = registered.filter((other) => other.referredBy === account.userId).length;
    // The count is summed over the user's item and its count shards (lib/store/referral-store.ts).
    const counted = referralCountIn(items.filter((item) => item.pk === userKey(company.company_id, account.userId).pk));
    if (user && counted !== referred) wrong(`user ${account.userId} counts ${counted} referrals, not ${referred}`);
    // The unread count, kept by the writes that change it, equals the unread notifications stored.
    const own = items.filter((item) => item.pk === userKey(company.company_id, account.userId).pk);
    const unreadCounted = own
      .filter((item) => item.sk.startsWith(UNREAD_COUNT_PREFIX))
      .reduce((sum, item) => sum + Number(item.unread ?? 0), 0);
    const unreadStored = own.filter((item) => item.sk.startsWith(NOTIFICATION_PREFIX) && Number(item.is_read) === 0).length;
    if (unreadCounted !== unreadStored)
      wrong(`user ${account.userId} counts ${unreadCounted} unread, but ${unreadStored} are stored unread`);
    if (!account.loggedOut) {
      const list = await call('referralProgram', undefined, { Authorization: `Token ${account.token}` }, 'GET');
      if (list.status !== 200) wrong('a live token did not work after the run', list);
    }
  }

  // The events: every record answered (faults are off), then the table and the events compared.
  const draining = Date.now();
  try {
    await poller.drain(120_000);
  } catch (error) {
    wrong(`events: the stream did not drain: ${(error as Error).message}`);
  }
  report.events.drainSeconds = (Date.now() - draining) / 1000;
  await poller.close();
  const finalItems = await scanItems(direct, tableName, company.company_id);
  const events = eventCheck(finalItems, company.company_id, seenEvents(bus), { profileUpdated });
  Object.assign(report.events, {
    putEventsCalls: bus.calls.putEvents,
    deadLetterCalls: bus.calls.deadLetter,
    received: events.received,
    distinct: events.distinct,
    deadLettered: events.deadLettered,
    byType: events.byType,
    proven: events.proven,
    problems: events.problems.length,
  });
  if (report.events.givenUp) wrong(`events: ${report.events.givenUp} stream records were given up`);
  for (const problem of events.problems) wrong(`events: ${problem}`);

  await Promise.all([proxy.close(), sns.close(), bus.close()]);
  direct.destroy();
  for (const each of [service, slow, ...ahead]) each.app.table.client.destroy();
  return report;
}
