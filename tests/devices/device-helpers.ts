// What the device and PIN tests share: a customer signed up with a bound device, an OTP login that
// binds one, and a PIN login signed by the device.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import { NOTIFICATION_PREFIX, sessionKey, userKey } from '../../lib/store/keys.js';
import { queryPartitionPrefix } from '../../lib/store/partition-query.js';
import { queryPinTallies } from '../../lib/store/pin-store.js';
import type { SessionRecord } from '../../lib/store/session-store.js';
import { type DeviceKeyPair, newDeviceKeyPair, signedLoginPin } from '../harness/device-keys.js';
import { type Account, codeIn, type InProcessService, invoke, outboxMessages, sessionIdOf, signUp } from '../helpers.js';

export const PINS = { login_pin: '2580', transaction_pin: '1397' };

export interface Device extends DeviceKeyPair {
  deviceKey: string;
}

/** A customer whose registration bound a new device. */
export async function signUpWithDevice(
  service: InProcessService,
  company: Company,
  overrides: Record<string, unknown> = {},
): Promise<{ account: Account; device: Device }> {
  const keys = newDeviceKeyPair();
  const account = await signUp(service, company, { ...PINS, device_public_key: keys.publicKey, ...overrides });
  const deviceKey = (await sessionOf(service, company, account, account.authorization))?.device_key;
  if (!deviceKey) throw new Error('registration bound no device');
  return { account, device: { ...keys, deviceKey } };
}

/** An OTP login (otp_type 1), binding a device when given one: the answer. */
export async function otpLogin(service: InProcessService, company: Company, account: Account, binding: Record<string, unknown> = {}) {
  const userType = Number(account.registration.user_type ?? 2);
  const target = { dial_code: '+1', phone_number: String(account.registration.phone_number), user_type: userType, otp_type: 1 };
  const headers = { CompanyID: company.company_id };
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const sent = await invoke(service.handlers.loginPhone, { path: '/l', headers, body: target });
  if (sent.status !== 200) throw new Error(`login code not sent: ${JSON.stringify(sent.body)}`);
  const code = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${target.phone_number}`).at(-1));
  return invoke(service.handlers.verifyOtp, { path: '/v', headers, body: { ...target, otp: code, ...binding } });
}

/** The Authorization of a session begun by an OTP login just now (the fresh proof of the holder a phone change or deletion asks). */
export async function freshOtpSession(service: InProcessService, company: Company, account: Account): Promise<string> {
  const login = await otpLogin(service, company, account);
  if (login.status !== 200) throw new Error(`OTP login answered ${login.status}`);
  return `Token ${login.body.data.token.token}`;
}

/** A PIN login signed by the device at the service's clock (or the options' timestamp). */
export function pinLogin(
  service: InProcessService,
  company: Company,
  device: { privateKey: Device['privateKey']; deviceKey: string },
  pin: string,
  options: { timestamp?: number; nonce?: string; encoding?: 'der' | 'raw'; companyId?: string } = {},
) {
  const body = signedLoginPin(device, options.companyId ?? company.company_id, pin, {
    timestamp: options.timestamp ?? epochSeconds(service.clock),
    ...options,
  });
  return invoke(service.handlers.loginPin, { path: '/wallet/v3/auth/login_pin', headers: { CompanyID: company.company_id }, body });
}

/** The stored session of a token, read strongly consistently. */
export async function sessionOf(
  service: InProcessService,
  company: Company,
  account: Account,
  authorization: string,
): Promise<SessionRecord | undefined> {
  const key = sessionKey(company.company_id, account.userId, sessionIdOf(authorization));
  const { Item } = await service.app.table.client.send(
    new GetCommand({ TableName: service.app.table.name, Key: key, ConsistentRead: true }),
  );
  // An ended session is marked, and as good as absent.
  return Item?.ended_reason === undefined ? (Item as SessionRecord | undefined) : undefined;
}

/** How many wrong tries a user's login PIN holds now, over its tallies (one per device, one for sessions with no device). */
export async function loginPinTries(service: InProcessService, company: Company, account: Account): Promise<number> {
  const tallies = await queryPinTallies(service.app.table, { companyId: company.company_id, userId: account.userId, pinType: 'login' });
  return tallies.reduce((sum, { tries }) => sum + tries, 0);
}

/** Whether a token works: the device list answers 200 with it. */
export async function tokenWorks(service: InProcessService, company: Company, authorization: string): Promise<boolean> {
  const answer = await invoke(service.handlers.devices, {
    method: 'GET',
    path: '/wallet/v3/auth/devices',
    headers: { CompanyID: company.company_id, Authorization: authorization },
  });
  return answer.status === 200;
}

/** The events of a user's notices, as stored (in sort-key order: oldest first). */
export async function noticeEvents(service: InProcessService, company: Company, userId: string): Promise<number[]> {
  const items = await queryPartitionPrefix(service.app.table, userKey(company.company_id, userId).pk, NOTIFICATION_PREFIX);
  return items.map((item) => item.notification_event_type as number);
}

/** The Authorization of a strong session (API contract 3.15): a PIN login just now on a settled device (one registration bound). */
export async function strongSession(service: InProcessService, company: Company, device: Device, pin = PINS.login_pin): Promise<string> {
  const login = await pinLogin(service, company, device, pin);
  if (login.status !== 200) throw new Error(`PIN login answered ${login.status}: ${JSON.stringify(login.body)}`);
  return `Token ${login.body.data.token.token}`;
}
