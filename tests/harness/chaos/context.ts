import { type KeyObject, randomInt, randomUUID } from 'node:crypto';
import { epochSeconds } from '../../../lib/clock.js';
import type { Config } from '../../../lib/config.js';
import { setStatusEndingSessions } from '../../../lib/sessions/end-sessions.js';
import { UserStatus } from '../../../lib/store/user-status.js';
import { signedLoginPin } from '../device-keys.js';
import { type Answer, codeIn, type EndpointName, type InProcessService, invoke, sessionIdOf } from '../in-process-service.js';
import type { RecoverySent } from '../phone-change-check.js';
import type { OtpLogin, PhoneChangeSent } from '../session-check.js';
import type { FakeSns } from '../sns-fake.js';
import { type ChaosReport, flowRequests } from './report.js';

// What the chaos run's flows share (tests/harness/chaos/run.ts): the accounts answered, the way
// requests are sent and judged, and what is left to retry once the faults are off; and how the
// run makes it (chaosContext). Each flow (tests/harness/chaos/<flow>.ts) is built from this, and
// none imports the run.

/** A registered account as the run knows it from the answers. */
export interface Registered {
  userId: string;
  referralCode: string;
  token: string;
  referredBy?: string;
  loggedOut: boolean;
  /** Held by one client's flow on this account while it runs. */
  inUse?: boolean;
  /**
   * The device bound at registration, and the login PIN it unlocks; boundBy: the service's second
   * when its registration was answered (the device's created_at is no later).
   */
  device?: { privateKey: KeyObject; deviceKey: string; boundBy: number };
  loginPin: string;
  /** Wrong PINs sent since the last right one (answered or not): kept under the lock's 5. */
  wrongPins: number;
  /** The current token's session is bound to the device (registered with it, or a PIN login): removing the device ends it. */
  tokenOnDevice: boolean;
  /** Its login PIN locked, or being locked (from the first wrong PIN on): PIN logins leave it alone until an OTP login opens it. */
  pinLocked?: boolean;
  /** The national number and email as last answered (an ambiguous change parks the account until its retry answers). */
  phone: string;
  email: string | undefined;
  /**
   * The answers cannot tell its phone or email: a change answered 503 whose retry found the
   * account ended (401) may have committed first. The table's phone and email are not compared.
   */
  uncertain?: boolean;
  /** When a code may next be sent to its phone (ms, service clock): the send interval per phone. */
  quietAfter: number;
  /** An ambiguous profile update or phone change waits for its retry after the run: no flow uses it. */
  parked?: boolean;
  /** Disabled by an operator (status 2): no flow uses it again. */
  disabled?: boolean;
  /** Its deletion asked for (status 4, or maybe, until its retry): no flow uses it again. */
  deleted?: boolean;
  /** Raced by a SIM swapper (sim-swap-races.ts): its PINs, devices and sessions are the race's to know, and no flow uses it again. */
  swapped?: boolean;
  /** Its passkey raced its logins (passkey-races.ts): no flow uses it again. */
  passkeyRaced?: boolean;
}

/** A profile update or phone change, and what a definite answer means for its account. */
export interface AccountChange {
  account: Registered;
  name: 'userProfileUpdate' | 'userPhoneChange';
  body: Record<string, unknown>;
  /** What a definite answer means for the account, or why it is wrong. */
  settle: (answer: Answer) => void;
}

export interface ChaosContext {
  config: Config;
  companyId: string;
  /** The service, and containers of its deployment whose clocks run 1, 2, 3 send intervals ahead (a phone's codes, one per interval; their calls slowed). */
  service: InProcessService;
  ahead: InProcessService[];
  /** A container on the service's clock whose DynamoDB calls each wait a few ms first (as do those of the ones ahead). */
  slow: InProcessService;
  /** Seconds between two codes to one phone, and one more. */
  interval: number;
  sns: FakeSns;
  report: ChaosReport;
  /** When the flows stop (Date.now()): none starts a request chain after it. */
  endAt: number;
  registered: Registered[];
  wrong: (what: string, answer?: Answer) => void;
  /** The run's log (ChaosOptions.log). */
  log: (line: string) => void;
  call: (name: EndpointName, body: unknown, headers?: Record<string, string>, method?: string, via?: InProcessService) => Promise<Answer>;
  /** An answer that says nothing of the outcome: 503, or 409 code 20 (its first request still at work). */
  isAmbiguous: (answer: Answer) => boolean;
  /** Sends a request with its key until it has a definite answer, at most `rounds` times again. */
  untilDefinite: (send: () => Promise<Answer>, rounds: number) => Promise<Answer>;
  /** No client uses the account, and it is not waiting for a retry nor ended. */
  isFree: (account: Registered) => boolean;
  /** An account no other client is using, marked as in use until `flow` ends. */
  withAccount: (eligible: (account: Registered) => boolean, flow: (account: Registered) => Promise<void>) => Promise<void>;
  /** Up to `count` (at least 1) accounts no other client is using, held until `flow` ends. */
  withAccounts: (
    count: number,
    eligible: (account: Registered) => boolean,
    flow: (accounts: Registered[]) => Promise<void>,
  ) => Promise<void>;
  /**
   * A code sent to a number and verified, each retried with its key (`rounds` times again, 2 unless
   * told): the verification's answer, or undefined. None is sent past the run's end, unless told.
   */
  sendAndCheck: (
    target: Record<string, unknown>,
    headers: Record<string, string>,
    via: InProcessService,
    options?: { pastTheEnd?: boolean; rounds?: number },
  ) => Promise<Answer | undefined>;
  /** An OTP login to the account's phone answered 200: the account takes its token, and the login is recorded. */
  loggedInByOtp: (account: Registered, login: Answer) => void;
  /**
   * A PIN login on the account's device, retried with its key (`rounds` times again): the fresh proof
   * a phone change takes to move the number at once (contract 3.11, round 5). True when the account
   * took its token; a right PIN refused is wrong.
   */
  freshPinLogin: (account: Registered, rounds: number) => Promise<boolean>;
  /** An OTP login answered 200, recorded for the session check: its session and the number its code went to. */
  recordOtpLogin: (login: Answer, phoneE164: string) => void;
  /**
   * What the session check needs from the answers (tests/harness/session-check.ts), and the
   * recoveries approved, for the check of recovered users (tests/harness/phone-change-check.ts).
   */
  answered: { otpLogins: OtpLogin[]; phoneChanges: PhoneChangeSent[]; recoveries: RecoverySent[] };
  /** The back office's employees the run made (phone-recoveries.ts): stored users no registration answered. */
  employees: Set<string>;
  freshEmail: () => string;
  /** Users answered 200 to a profile update (each has its user.profile_updated). */
  profileUpdated: Set<string>;
  /** Work retried with its key once the faults are off. */
  pendingChanges: (AccountChange & { key: string; authorization: string })[];
  deletions: { account: Registered; eraseAfter?: number }[];
  pendingDeletions: { account: Registered; key: string; authorization: string }[];
  /** Disables the user as user:disable does (status 2, sessions ended): true when done; one that fails under faults is run again after. */
  disableUser: (account: Registered, via?: InProcessService) => Promise<boolean>;
  /** Disables that failed under faults, run again once they are off. */
  pendingDisables: Registered[];
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the run sets up before the flows: the service and its containers, the SNS fake, the report, the end. */
export type ChaosSetup = Pick<
  ChaosContext,
  'config' | 'companyId' | 'service' | 'ahead' | 'slow' | 'interval' | 'sns' | 'report' | 'endAt' | 'log'
>;

/** Documented statuses (contract section 4). */
const DOCUMENTED = new Set([200, 400, 401, 403, 404, 409, 413, 429, 503]);

export function chaosContext(setup: ChaosSetup): ChaosContext {
  const { companyId, service, sns, report, endAt, log } = setup;
  const wrong = (what: string, answer?: Answer) => {
    report.wrong.push(`${what}${answer ? `: ${answer.status} ${JSON.stringify(answer.body)}` : ''}`);
    log(`WRONG ${report.wrong.at(-1)}`);
  };

  /** Every answer is counted, and judged against the envelope and the documented statuses. */
  const call = async (
    name: EndpointName,
    body: unknown,
    headers: Record<string, string> = {},
    method = 'POST',
    via: InProcessService = service,
  ): Promise<Answer> => {
    const sentAt = performance.now();
    const answer = await invoke(via.handlers[name], {
      method,
      path: `/${name}`,
      headers: { CompanyID: companyId, ...headers },
      body,
    });
    report.requests++;
    const flow = flowRequests.getStore();
    if (flow) flow.requests++;
    if (Date.now() < endAt) report.requestsInRun++;
    report.byStatus[answer.status] = (report.byStatus[answer.status] ?? 0) + 1;
    const kind = `${answer.status}${answer.body?.error?.[0] ? ` code ${answer.body.error[0]}` : ''}`;
    report.msByAnswer[kind] = Math.round((report.msByAnswer[kind] ?? 0) + performance.now() - sentAt);
    if (answer.status === 503) report.unavailableBy[name] = (report.unavailableBy[name] ?? 0) + 1;
    const envelope = answer.body && (answer.body.success === 1 || answer.body.success === 0) && Array.isArray(answer.body.error);
    if (!DOCUMENTED.has(answer.status) || !envelope) wrong(`${name} answered outside the envelope or documented statuses`, answer);
    return answer;
  };
  const isAmbiguous = (answer: Answer) => answer.status === 503 || (answer.status === 409 && answer.body.error[0] === 20);
  const untilDefinite = async (send: () => Promise<Answer>, rounds: number): Promise<Answer> => {
    let answer = await send();
    for (let round = 0; round < rounds && isAmbiguous(answer); round++) {
      // A key still held (its first run's release failed too) frees at Retry-After, not before: wait it out in full.
      // After an outage, a random part of it spreads the retries.
      const retryAfterMs = Number(answer.headers['retry-after'] ?? 0) * 1000;
      const waitMs = answer.status === 409 ? retryAfterMs + 250 * Math.random() : Math.max(200, retryAfterMs * Math.random());
      report.msWaitedAfter[answer.status] = Math.round((report.msWaitedAfter[answer.status] ?? 0) + waitMs);
      await sleep(waitMs);
      answer = await send();
    }
    return answer;
  };

  const registered: Registered[] = [];
  const isFree = (account: Registered) =>
    !account.inUse && !account.parked && !account.disabled && !account.deleted && !account.swapped && !account.passkeyRaced;
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

  const freshPinLogin = async (account: Registered, rounds: number) => {
    if (!account.device || account.pinLocked) return false;
    const body = signedLoginPin(account.device, companyId, account.loginPin, { timestamp: epochSeconds(service.clock) });
    const key = randomUUID();
    const login = await untilDefinite(() => call('loginPin', body, { 'Idempotency-Key': key }), rounds);
    if (login.status === 200) {
      account.token = login.body.data.token.token;
      account.tokenOnDevice = true;
      account.loggedOut = false;
      account.wrongPins = 0;
      return true;
    }
    if (login.status === 400 && login.body.error[0] === 18) account.pinLocked = true;
    else if (login.status === 400 || login.status === 401) wrong('a right login PIN was refused', login);
    return false;
  };

  /** The code last sent to a number, through the SNS fake. */
  const lastCode = (phone: string) => sns.published.filter((sms) => sms.phoneNumber === `+1${phone}`).at(-1)?.message;
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
  const answered: ChaosContext['answered'] = { otpLogins: [], phoneChanges: [], recoveries: [] };
  const recordOtpLogin = (login: Answer, phoneE164: string) => {
    const sid = sessionIdOf(`Token ${login.body.data.token.token}`);
    answered.otpLogins.push({ sid, userId: login.body.data.user_id, phoneE164 });
  };
  /**
   * A token bound to no device. The login PIN's tries stay as they were: since round 6 an OTP login
   * opens no lock (contract 3.6: only a reset does), so a locked account stays locked to the run.
   */
  const loggedInByOtp = (account: Registered, login: Answer) => {
    recordOtpLogin(login, `+1${account.phone}`);
    account.token = login.body.data.token.token;
    account.tokenOnDevice = false;
    account.loggedOut = false;
  };

  // Shared with the race on one account, which ends accounts the same ways (one-account-race.ts).
  const pendingDisables: Registered[] = [];
  const disableUser = async (account: Registered, via = service) => {
    account.disabled = true;
    account.loggedOut = true;
    try {
      await setStatusEndingSessions(via.app, companyId, account.userId, UserStatus.DISABLED);
      report.disabled++;
      return true;
    } catch {
      pendingDisables.push(account);
      return false;
    }
  };

  return {
    ...setup,
    registered,
    wrong,
    call,
    isAmbiguous,
    untilDefinite,
    isFree,
    withAccount,
    withAccounts,
    sendAndCheck,
    freshPinLogin,
    loggedInByOtp,
    recordOtpLogin,
    answered,
    freshEmail: () => `chaos.${randomUUID().slice(0, 13)}@example.com`,
    profileUpdated: new Set<string>(),
    employees: new Set<string>(),
    pendingChanges: [],
    deletions: [],
    pendingDeletions: [],
    disableUser,
    pendingDisables,
  };
}
