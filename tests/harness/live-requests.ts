import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { endpoints } from '../../lib/api/endpoints.js';
import { userRegisterEndpoint } from '../../lib/api/user-register-endpoint.js';
import type { SendText } from '../../lib/sms/sms-sender.js';
import { type DeviceKeyPair, newDeviceKeyPair, signedLoginPin } from './device-keys.js';
import type { HostileFixture } from './hostile-input/fixture.js';
import { type HostilePart, type HostileRequest, requestOf, type ValidRequest, withOneHostilePart } from './hostile-input/requests.js';
import { codeIn, type EndpointName, randomPhoneNumber } from './in-process-service.js';
import { STAFF_PINS, type StaffDevice } from './staff-members.js';

// Valid requests of a live account with one part made hostile, for npm run fuzz's long run: a
// live token, the account's own device signature, its right PINs, a code just received, and one
// header, field or query made hostile (or none). Many reach their endpoint's success path, so
// its writes meet the run's faults, where generated requests mostly stop at the gate.
// Each fuzz client keeps an account of its own and sends one request at a time, so it knows what
// each answer did to the account (a PIN changed, a session ended, a device removed). An answer it
// cannot read (a 503 after a write, a PIN locked, a token ended) retires the account for a new one.
// The back office's routes go with the run's admin (an employee the operator registered with a
// settled device, signed in by PIN login: a fresh strong session), acting on the client's account.

export interface LiveAnswer {
  status: number;
  body: { success?: number; error?: number[]; data?: Record<string, any> } | null;
}

/** Sends one request through the run's checks and counts; answers what came back. */
export type SendChecked = (request: HostileRequest) => Promise<LiveAnswer>;

/** The texts the service sent, the latest per number: where live accounts read their codes. */
export class TextInbox {
  private readonly latest = new Map<string, string>();
  readonly send: SendText = async ({ phoneNumber, text }) => {
    this.latest.set(phoneNumber, text);
  };
  /** The code of the latest text to a national +1 number, and forgets it (each is read once). */
  take(phoneNumber: string): string | undefined {
    const text = this.latest.get(`+1${phoneNumber}`);
    this.latest.delete(`+1${phoneNumber}`);
    return text === undefined ? undefined : codeIn(text);
  }
}

/** PIN pairs an account switches between on each change or reset (neither guessable). */
const LOGIN_PINS = ['2580', '8052'] as const;
const TRANSACTION_PINS = ['1397', '7153'] as const;
const other = (pins: readonly [string, string], pin: string) => (pin === pins[0] ? pins[1] : pins[0]);

interface Account {
  userId: string;
  phone: string;
  device: DeviceKeyPair & { deviceKey: string };
  loginPin: string;
  transactionPin: string;
  /** A session begun by OTP login: it may reset a PIN without a proof for a while (PIN_RESET_OTP_SESSION_SECONDS). */
  token: string;
  otpLoginAt: number;
  sendsThisHour: number[];
  /** The change_id of a phone change this account made pending, until cancelled. */
  pendingChangeId?: string | undefined;
  /** The change_id of a recovery the run's admin started for this account, until cancelled. */
  recoveryId?: string | undefined;
  /** A role grant the run's admin asked for, which only another admin may approve. */
  grantId?: string | undefined;
}

/** Sessions and devices a request may end: made by other requests, each used once. */
interface Spare {
  token: string;
  refreshToken?: string;
  deviceKey?: string;
}

/** What a live client did, for the run's report. */
export interface LiveTally {
  sent: number;
  /** Requests that prepared another (an account, a code, a session, a device to remove). */
  preparing: number;
  /** Accounts set up, the first of each client included. */
  accounts: number;
  /** How many had each part made hostile, or none. */
  parts: Record<string, number>;
}

const SECOND = 1000;
/** OTP_SEND_INTERVAL_SECONDS and OTP_SENDS_PER_PHONE_PER_HOUR at their defaults. */
const SEND_INTERVAL_MS = 61 * SECOND;
const SENDS_PER_HOUR = 5;
/** Under PIN_RESET_OTP_SESSION_SECONDS (600), with room for the request's own time. */
const OTP_SESSION_RESETS_MS = 540 * SECOND;
/** Under STEP_UP_MAX_AGE_SECONDS (600): the admin's session stays fresh for what only an admin may do. */
const FRESH_STAFF_MS = 540 * SECOND;
/** Attempts at a preparing request that faults keep answering 503. */
const ATTEMPTS = 4;

export class LiveClient {
  private account: Account | undefined;
  private readonly sessions: Spare[] = [];
  private readonly devices: Spare[] = [];
  private readonly sendPlain: SendChecked;
  private staffSession: { token: string; at: number } | undefined;

  constructor(
    private readonly fixture: HostileFixture,
    send: SendChecked,
    private readonly inbox: TextInbox,
    /** The run's admin: the back office's routes are sent with its strong session. */
    private readonly admin: { device: StaffDevice; employeeId: string },
    readonly tally: LiveTally = { sent: 0, preparing: 0, accounts: 0, parts: {} },
  ) {
    this.sendPlain = async (request) => {
      tally.sent += 1;
      return send(request);
    };
  }

  /** One request of the endpoint, valid but for one hostile part drawn with the seed; false for an endpoint with no success path. */
  async send(endpoint: EndpointName, seed: number): Promise<boolean> {
    if (endpoint === 'notFound') return false;
    const { valid, settle } = await this.validRequest(endpoint);
    const { part, request } = fc.sample(withOneHostilePart(valid, this.fixture), { numRuns: 1, seed })[0]!;
    this.tally.parts[part] = (this.tally.parts[part] ?? 0) + 1;
    const answer = await this.sendPlain(request);
    settle(answer, request, part);
    return true;
  }

  private headers(token?: string): ValidRequest['headers'] {
    return { CompanyID: this.fixture.companyId, ...(token ? { Authorization: `Token ${token}` } : {}) };
  }

  /** A preparing request, sent as it is; sent again while faults answer it 503. */
  private async prepare(valid: () => ValidRequest): Promise<LiveAnswer> {
    let answer: LiveAnswer = { status: 0, body: null };
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      this.tally.preparing += 1;
      answer = await this.sendPlain(requestOf(valid()));
      if (answer.status !== 503) break;
    }
    return answer;
  }

  private registration(phone: string, device: DeviceKeyPair): Record<string, unknown> {
    return {
      ...userRegisterEndpoint.examples.request,
      phone_number: phone,
      email: `fuzz.${phone}@example.com`,
      login_pin: LOGIN_PINS[0],
      transaction_pin: TRANSACTION_PINS[0],
      device_public_key: device.publicKey,
    };
  }

  /** A registered user with a bound device: its token and device. Throws when faults or a fault of ours keep refusing it. */
  private async register(): Promise<{ userId: string; phone: string; device: DeviceKeyPair; token: string; deviceKey: string }> {
    let answer: LiveAnswer | undefined;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const phone = randomPhoneNumber();
      const device = newDeviceKeyPair();
      // A 503 may have registered it: a number of its own for the next attempt.
      answer = await this.prepare(() => ({ endpoint: 'userRegister', headers: this.headers(), body: this.registration(phone, device) }));
      const data = answer.body?.data;
      if (answer.status === 200) return { userId: data!.user_id, phone, device, token: data!.token.token, deviceKey: data!.device_key };
    }
    throw new Error(`live: ${ATTEMPTS} registrations refused, the last ${answer?.status} ${JSON.stringify(answer?.body)}`);
  }

  /** A code sent to a number (login or phone proof) and read from the inbox, or undefined. */
  private async codeSentTo(phone: string, otpType: 1 | 2, token?: string): Promise<string | undefined> {
    const target = { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: otpType };
    const answer = await this.prepare(() => ({ endpoint: 'loginPhone', headers: this.headers(token), body: target }));
    // A 503 may still have sent it.
    return answer.status === 200 || answer.status === 503 ? this.inbox.take(phone) : undefined;
  }

  /** A session begun by OTP login for the account, or false when its phone may not be sent another code now. */
  private async otpLogin(account: Account): Promise<boolean> {
    const now = Date.now();
    account.sendsThisHour = account.sendsThisHour.filter((at) => now - at < 3600 * SECOND);
    const last = account.sendsThisHour.at(-1) ?? 0;
    if (account.sendsThisHour.length >= SENDS_PER_HOUR || now - last < SEND_INTERVAL_MS) return false;
    account.sendsThisHour.push(now);
    const otp = await this.codeSentTo(account.phone, 1);
    if (!otp) return false;
    const body = { dial_code: '+1', phone_number: account.phone, user_type: 2, otp_type: 1, otp };
    const answer = await this.prepare(() => ({ endpoint: 'verifyOtp', headers: this.headers(), body }));
    if (answer.status !== 200) return false;
    account.token = answer.body!.data!.token.token;
    account.otpLoginAt = Date.now();
    return true;
  }

  /** The client's account, set up anew when it has none (a registration, then an OTP login). */
  private async liveAccount(): Promise<Account> {
    for (let attempt = 0; !this.account; attempt++) {
      if (attempt === ATTEMPTS) throw new Error(`live: no account after ${ATTEMPTS} registrations and OTP logins`);
      const user = await this.register();
      this.tally.accounts += 1;
      const account: Account = {
        userId: user.userId,
        phone: user.phone,
        device: { ...user.device, deviceKey: user.deviceKey },
        loginPin: LOGIN_PINS[0],
        transactionPin: TRANSACTION_PINS[0],
        token: user.token,
        otpLoginAt: 0,
        sendsThisHour: [],
      };
      // The registration's session is one to end later.
      this.sessions.splice(0, this.sessions.length, { token: user.token });
      if (await this.otpLogin(account)) this.account = account;
    }
    return this.account;
  }

  private retire(): void {
    this.account = undefined;
    this.sessions.length = 0;
  }

  private signedPinLogin(account: Account): Record<string, unknown> {
    return signedLoginPin(account.device, this.fixture.companyId, account.loginPin, { timestamp: Math.floor(Date.now() / 1000) });
  }

  /** The admin's strong session, renewed by a PIN login on its settled device before it is no longer fresh. */
  private async staffToken(): Promise<string | undefined> {
    if (this.staffSession && Date.now() - this.staffSession.at < FRESH_STAFF_MS) return this.staffSession.token;
    const body = signedLoginPin(this.admin.device, this.fixture.companyId, STAFF_PINS.login_pin, {
      timestamp: Math.floor(Date.now() / 1000),
    });
    const answer = await this.prepare(() => ({ endpoint: 'loginPin', headers: this.headers(), body }));
    this.staffSession = answer.status === 200 ? { token: answer.body!.data!.token.token, at: Date.now() } : undefined;
    return this.staffSession?.token;
  }

  /** A session of the account to end: one its PIN logins made, or a new one. */
  private async spareSession(account: Account): Promise<Spare | undefined> {
    if (this.sessions.length) return this.sessions.pop();
    const answer = await this.prepare(() => ({ endpoint: 'loginPin', headers: this.headers(), body: this.signedPinLogin(account) }));
    return answer.status === 200 ? { token: answer.body!.data!.token.token, refreshToken: answer.body!.data!.refresh_token } : undefined;
  }

  /** A device to remove: one a registration bound, with that user's token. */
  private async spareDevice(): Promise<Spare | undefined> {
    if (this.devices.length) return this.devices.pop();
    const user = await this.register();
    return { token: user.token, deviceKey: user.deviceKey };
  }

  /**
   * The endpoint's valid request for the account, and what its answer means for the account.
   * A request with a token the account holds is answered 401 only when a part made it so; else
   * its session has ended, and the account retires.
   */
  private async validRequest(endpoint: Exclude<EndpointName, 'notFound'>): Promise<{
    valid: ValidRequest;
    settle: (answer: LiveAnswer, sent: HostileRequest, part: HostilePart | 'none') => void;
  }> {
    const account = await this.liveAccount();
    const headers = this.headers(account.token);
    /** Settles a request made with the account's token: a 401 the part did not cause, a lock or an unknown outcome of a PIN write retires it. */
    const withToken =
      (pinWrite = false, then?: (answer: LiveAnswer, sent: HostileRequest) => void) =>
      (answer: LiveAnswer, sent: HostileRequest, part: HostilePart | 'none') => {
        const tokenRefused = answer.status === 401 && part !== 'authorization' && part !== 'companyId';
        const locked = answer.body?.error?.[0] === 18;
        if (tokenRefused || locked || (pinWrite && answer.status === 503)) return this.retire();
        then?.(answer, sent);
      };
    const nothing = () => undefined;
    switch (endpoint) {
      case 'userRegister': {
        const device = newDeviceKeyPair();
        return {
          valid: { endpoint, headers: this.headers(), body: this.registration(randomPhoneNumber(), device) },
          settle: (answer) => {
            const data = answer.body?.data;
            if (answer.status === 200 && data?.device_key) this.devices.push({ token: data.token.token, deviceKey: data.device_key });
          },
        };
      }
      case 'loginPhone':
        return {
          valid: {
            endpoint,
            headers: this.headers(),
            body: { dial_code: '+1', phone_number: randomPhoneNumber(), user_type: 2, otp_type: (randomBytes(1)[0]! % 2) + 1 },
          },
          settle: nothing,
        };
      case 'verifyOtp': {
        const phone = randomPhoneNumber();
        const otp = (await this.codeSentTo(phone, 2)) ?? '000000';
        return {
          valid: { endpoint, headers: this.headers(), body: { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2, otp } },
          settle: nothing,
        };
      }
      case 'referralProgram':
      case 'notifications':
      case 'devices':
        return { valid: { endpoint, headers, query: endpoint === 'devices' ? undefined : { limit: '5' } }, settle: withToken() };
      case 'notificationsRead':
        return { valid: { endpoint, headers, body: { all: 1 } }, settle: withToken() };
      case 'userProfile':
      case 'userExport':
        return { valid: { endpoint, headers }, settle: withToken() };
      case 'userSecurityNotMe':
        // The account's sessions are SMS-strength: not_me needs a strong one (403 code 5).
        return { valid: { endpoint, headers, body: {} }, settle: withToken() };
      case 'devicesApprove':
        // The same: approving a device needs a strong session (403 code 5).
        return { valid: { endpoint, headers, body: { device_key: account.device.deviceKey } }, settle: withToken() };
      case 'stepUp':
        // Only a strong session steps up (403 code 5): the signature is a PIN login's, of the account's device.
        return { valid: { endpoint, headers, body: this.signedPinLogin(account) }, settle: withToken() };
      // The fuzz's company has no webauthn settings: each passkey route answers 400 code 1 naming it (the list: 200, empty).
      case 'passkeys':
        return { valid: { endpoint, headers }, settle: withToken() };
      case 'passkeysRegisterOptions':
        return { valid: { endpoint, headers, body: {} }, settle: withToken() };
      case 'passkeysRegister':
      case 'passkeysRemove':
        return { valid: { endpoint, headers, body: endpoints[endpoint].examples.request }, settle: withToken() };
      case 'passkeysLoginOptions':
        return { valid: { endpoint, headers: this.headers(), body: { dial_code: '+1', phone_number: account.phone } }, settle: nothing };
      case 'passkeysLogin':
        return { valid: { endpoint, headers: this.headers(), body: endpoints[endpoint].examples.request }, settle: nothing };
      case 'adminUsersSearch':
      case 'adminUsersView':
      case 'adminCompanyView':
      case 'adminApprovalsList':
      case 'adminUsersSessionsEnd':
      case 'adminUsersStatus':
      case 'adminUsersDevicesRemove':
      case 'adminUsersPasskeysRemove':
      case 'adminUsersRestore':
      case 'adminUsersPhoneRecover':
      case 'adminUsersPhoneApprove':
      case 'adminUsersPhoneCancel':
      case 'adminEmployeeRole':
      case 'adminEmployeesApprove':
      case 'adminEmployeesDevicesApprove':
      case 'adminCompanyUpdate':
      case 'adminCompanyApprove':
        return this.backOfficeRequest(endpoint, account);
      case 'userDelete':
        // The account's OTP login is fresh: its deletion is held (contract 3.15, second reading), and the account retires.
        return {
          valid: { endpoint, headers, body: {} },
          settle: withToken(false, (answer) => {
            if (answer.status === 200) this.retire();
          }),
        };
      case 'userPhoneChangeCancel':
      case 'userChangesCancel':
        // The account's pending change when it has one (then cancelled), else an id no change has (404 code 6).
        return {
          valid: { endpoint, headers, body: { change_id: account.pendingChangeId ?? '0'.repeat(32) } },
          settle: withToken(false, (answer) => {
            if (answer.status === 200) account.pendingChangeId = undefined;
          }),
        };
      case 'userProfileUpdate':
        return { valid: { endpoint, headers, body: { first_name: 'Ada', last_name: 'Lovelace' } }, settle: withToken() };
      case 'userPhoneChange': {
        // A fresh OTP login, and a proof of a new number verified with the account's token.
        if (Date.now() - account.otpLoginAt > OTP_SESSION_RESETS_MS && !(await this.otpLogin(account))) {
          this.retire();
          return this.validRequest(endpoint);
        }
        const phone = randomPhoneNumber();
        const otp = (await this.codeSentTo(phone, 2, account.token)) ?? '000000';
        const target = { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2, otp };
        const verified = await this.prepare(() => ({ endpoint: 'verifyOtp', headers: this.headers(account.token), body: target }));
        const proof = verified.body?.data?.verification_token ?? 'A'.repeat(43);
        return {
          valid: {
            endpoint,
            headers: this.headers(account.token),
            // The session began by OTP login: the change takes the login PIN, and waits (contract 3.11, round 5).
            body: { dial_code: '+1', phone_number: phone, phone_verification_token: proof, login_pin: account.loginPin },
          },
          settle: withToken(true, (answer) => {
            if (answer.status !== 200) return;
            if (answer.body?.data?.pending === 1) {
              account.pendingChangeId = answer.body.data.change_id;
              return;
            }
            // The proof holds for this number only: the account moved to it, and every other session ended.
            account.phone = phone;
            this.sessions.length = 0;
          }),
        };
      }
      case 'loginPin':
        return {
          valid: { endpoint, headers: this.headers(), body: this.signedPinLogin(account) },
          settle: (answer) => {
            if (answer.status === 200)
              this.sessions.push({ token: answer.body!.data!.token.token, refreshToken: answer.body!.data!.refresh_token });
            if (answer.body?.error?.[0] === 18) this.retire();
          },
        };
      case 'transactionAuthorization':
        return {
          valid: {
            endpoint,
            headers,
            body: {
              transaction_pin: account.transactionPin,
              amount: '12.50',
              currency: 'EUR',
              payee: 'Fuzz Coffee',
              reference: `fuzz-${randomBytes(8).toString('hex')}`,
            },
          },
          settle: withToken(),
        };
      case 'changePin':
      case 'resetPin': {
        const pinType = (randomBytes(1)[0]! % 2) + 1;
        const current = pinType === 1 ? account.loginPin : account.transactionPin;
        const newPin = other(pinType === 1 ? LOGIN_PINS : TRANSACTION_PINS, current);
        // A reset's proof is the account's recent OTP login.
        if (endpoint === 'resetPin' && Date.now() - account.otpLoginAt > OTP_SESSION_RESETS_MS && !(await this.otpLogin(account))) {
          this.retire();
          return this.validRequest(endpoint);
        }
        const body =
          endpoint === 'changePin' ? { pin_type: pinType, current_pin: current, new_pin: newPin } : { pin_type: pinType, new_pin: newPin };
        return {
          valid: { endpoint, headers: this.headers(account.token), body },
          settle: withToken(true, (answer, sent) => {
            // The account's sessions are SMS-strength: a new PIN waits (contract 3.15), the current one stays.
            if (answer.status !== 200 || answer.body?.data?.pending === 1) return;
            // The PIN the service took is the one sent, whatever the part changed; every other session ended.
            const taken = sentBody(sent);
            if (taken.pin_type === 1) account.loginPin = taken.new_pin;
            else account.transactionPin = taken.new_pin;
            this.sessions.length = 0;
          }),
        };
      }
      case 'logout': {
        const spare = await this.spareSession(account);
        return {
          valid: { endpoint, headers: this.headers(spare?.token), body: { scope: 'current' } },
          settle: (answer, sent) => {
            // Any other scope a part made may have ended the account's own session too.
            const applied = answer.status === 200 || answer.status === 503;
            if (applied && (sentBody(sent).scope ?? 'current') !== 'current') this.retire();
          },
        };
      }
      case 'tokenRefresh': {
        // A spare session's refresh token, spent once: its new pair is a spare again.
        const spare = await this.spareSession(account);
        return {
          valid: { endpoint, headers: this.headers(), body: { refresh_token: spare?.refreshToken ?? 'none' } },
          settle: (answer) => {
            const data = answer.body?.data;
            if (answer.status === 200 && data?.refresh_token)
              this.sessions.push({ token: data.token.token, refreshToken: data.refresh_token });
          },
        };
      }
      case 'devicesRemove': {
        const spare = await this.spareDevice();
        return {
          valid: { endpoint, headers: this.headers(spare?.token), body: { device_key: spare?.deviceKey ?? '0'.repeat(32) } },
          // A device refused for a part's sake may be removed by a later request.
          settle: (answer, _sent, part) => {
            if (spare && answer.status !== 200 && answer.status !== 503 && part !== 'none') this.devices.push(spare);
          },
        };
      }
    }
  }

  /**
   * The back office's request for the account, with the admin's strong session. What ends the
   * account's sessions or device (sessions_end, status disabled, a device removed) retires it; a
   * recovery or a grant it starts is what cancel and approve name next (approve: the same admin,
   * 403 code 5). The admin's own session refused for a part's sake is signed in again.
   */
  private async backOfficeRequest(
    endpoint: Extract<EndpointName, `admin${string}`>,
    account: Account,
  ): Promise<{ valid: ValidRequest; settle: (answer: LiveAnswer, sent: HostileRequest, part: HostilePart | 'none') => void }> {
    const headers = this.headers(await this.staffToken());
    const reason = 'fuzz';
    const user = { user_id: account.userId, reason };
    const bodies: Record<typeof endpoint, Record<string, unknown>> = {
      adminUsersSearch: { phone: `+1${account.phone}`, reason },
      adminUsersView: user,
      adminCompanyView: { reason },
      adminApprovalsList: { reason },
      adminUsersSessionsEnd: user,
      adminUsersStatus: { ...user, status: 'disabled' },
      adminUsersDevicesRemove: { ...user, device_key: account.device.deviceKey },
      adminUsersRestore: user,
      // The fuzz's company has no webauthn settings, so the account has no passkey: 404 code 6.
      adminUsersPasskeysRemove: { ...user, passkey_id: '9b1d6c3e5f7a8b2c4d6e8f0a1b3c5d7e' },
      adminUsersPhoneRecover: { ...user, dial_code: '+1', phone_number: randomPhoneNumber() },
      adminUsersPhoneApprove: { ...user, change_id: account.recoveryId ?? '0'.repeat(32) },
      adminUsersPhoneCancel: { ...user, change_id: account.recoveryId ?? '0'.repeat(32) },
      adminEmployeeRole: { user_id: this.fixture.userIds[1], role: 'support', reason },
      adminEmployeesApprove: { grant_id: account.grantId ?? '0'.repeat(32), reason },
      // The fixture's employee has no device of that key: 404 code 6.
      adminEmployeesDevicesApprove: { user_id: this.fixture.userIds[1], device_key: account.device.deviceKey, reason },
      adminCompanyUpdate: { sms_text: { templates: { en: 'Your {brand} code: {code}' } }, reason },
      adminCompanyApprove: { grant_id: account.grantId ?? '0'.repeat(32), reason },
    };
    const endsTheAccount: readonly string[] = ['adminUsersSessionsEnd', 'adminUsersStatus', 'adminUsersDevicesRemove'];
    return {
      valid: { endpoint, headers, body: bodies[endpoint] },
      settle: (answer, _sent, part) => {
        if (answer.status === 401 && part !== 'authorization' && part !== 'companyId') this.staffSession = undefined;
        // A 503 after the write may have ended the account's sessions or device as well.
        if (endsTheAccount.includes(endpoint) && (answer.status === 200 || answer.status === 503)) return this.retire();
        if (answer.status !== 200) return;
        if (endpoint === 'adminUsersPhoneRecover') account.recoveryId = answer.body?.data?.change_id;
        if (endpoint === 'adminUsersPhoneCancel') account.recoveryId = undefined;
        if (endpoint === 'adminEmployeeRole' || endpoint === 'adminCompanyUpdate') account.grantId = answer.body?.data?.grant_id;
      },
    };
  }
}

/** The body as the service read it (base64 decoded, a repeated key's last value); {} when it was none or no JSON. */
function sentBody(request: HostileRequest): Record<string, any> {
  const text = request.isBase64Encoded ? Buffer.from(request.body ?? '', 'base64').toString('utf8') : request.body;
  try {
    return JSON.parse(text ?? '{}') ?? {};
  } catch {
    return {};
  }
}

/** The clients' tallies together. */
export function tallyOf(clients: LiveClient[]): LiveTally {
  const all: LiveTally = { sent: 0, preparing: 0, accounts: 0, parts: {} };
  for (const { tally } of clients) {
    all.sent += tally.sent;
    all.preparing += tally.preparing;
    all.accounts += tally.accounts;
    for (const [part, count] of Object.entries(tally.parts)) all.parts[part] = (all.parts[part] ?? 0) + count;
  }
  return all;
}
