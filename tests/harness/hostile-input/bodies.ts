import fc from 'fast-check';
import { endpoints, type OperationName } from '../../../lib/api/endpoints.js';
import { userRegisterEndpoint } from '../../../lib/api/user-register-endpoint.js';
import { OTP_CODE_PATTERN } from '../../../lib/codes/otp-codes.js';
import type { Endpoint } from '../../../lib/http/endpoint.js';
import type { HostileFixture } from './fixture.js';
import { type EndpointName, FIELDS, isGet } from './routes.js';
import { hostileKey, hostileString, hostileValue, jsonObject, PRIVILEGED_KEYS, PROTO_KEYS, type RawJson } from './values.js';

// Hostile bodies: near misses for each field, a field dropped, set, repeated or added, text that
// is not a JSON object, and each endpoint's base before any change (its own where a run must be
// kept from succeeding, else its example request); and valid registrations carrying hostile extras.

/** The service's body limit (MAX_BODY_BYTES default): an accepted body must fit in it. */
const MAX_BODY_BYTES = 16 * 1024;

/** A referral code no user can hold (real ones have 8 characters): registration stops at it, before hashing. */
const UNKNOWN_REFERRAL_CODE = 'NOSUCHCODE';

/** Values close to right for one field: the right type with a wrong value, or the reverse. */
const NEAR_MISSES: Record<string, unknown[]> = {
  dial_code: ['1', '+', '+12345', 1, '+1 ', '＋1', '+0', '+999'],
  phone_number: [
    2025550143,
    '+12025550143',
    '202555014',
    '2'.repeat(25),
    '202-555-01a3',
    '２０２５５５０１４３',
    '(202) 555 0143',
    '5555555555',
  ],
  user_type: ['1', '2', 0, 3, -1, 1.5, 2, true],
  otp_type: ['1', 0, 5, 2.5, [1], { value: 1 }],
  otp: [123456, '12345', '1234567', '١٢٣٤٥٦', ' 123456', '000000', '12345a'],
  first_name: ['', ' ', 'x'.repeat(101), 42, ['Ada']],
  last_name: ['', 'x'.repeat(101), 0],
  password: ['short', 'x'.repeat(129), 12345678, '\u{1F600}'.repeat(7), ''],
  login_pin: [1234, '1111', '1234', '4321', '12a4', '１２３４', '1234567', '13'],
  transaction_pin: [1397, '0000', '9876', '98765'],
  email: ['a@', 'A@B', `${'x'.repeat(250)}@e.com`, 'a@b.c\u0000', 7, 'not an email'],
  account_number_prefix: ['AC!', 'x'.repeat(21), 12],
  status_id: ['1', 0, 1001, 1.5],
  birth_date: ['631152000000', -2208988800001, 4102444800000, 1.5, 1e308],
  image: ['javascript:alert(1)', 'ftp://x', 'not a url', `https://e.com/${'x'.repeat(2100)}`],
  kyc_status: ['1', 3, 0],
  kyc_process_status: ['4', '0', 4, '1.5', 'one', 1.5],
  country_id: ['', 'x'.repeat(65), 1],
  location_point: ['91,0', '0,181', '23.0225', 'a,b', [23, 72], { lat: 1, lng: 2 }, '1e1,2'],
  location_poin: ['91,0', 'a,b', 5],
  device_type: ['1', -1, 1001],
  device_id: ['x'.repeat(257), 1],
  device_unique_id: ['x'.repeat(257), {}],
  parent_user_id: ['f'.repeat(31), 'g'.repeat(32), 'f'.repeat(33), 7],
  referral_code: ['abc', 'x'.repeat(33), 'AB CD', 12345678, UNKNOWN_REFERRAL_CODE.toLowerCase()],
  cretaed_by: ['operator', 'f'.repeat(32), 1],
  user_id: ['f'.repeat(31), 'g'.repeat(32), 'F'.repeat(32), 12],
  currency: ['eur', 'EURO', 'XXX', 978, ' EUR'],
  payee: ['', 'x'.repeat(129), 'a\u0000b', 7],
  reference: ['', 'x'.repeat(129), 'a\nb', ['order-1']],
};

export type Mutation =
  | { kind: 'drop'; field: string }
  | { kind: 'set'; field: string; value: unknown }
  /** The field written twice: JSON.parse keeps the later value. */
  | { kind: 'repeat'; field: string; value: unknown }
  | { kind: 'add'; key: string; value: unknown };

/** A change to one field of a body, of a given kind or any. */
export function mutation(fields: string[], kind?: Mutation['kind']): fc.Arbitrary<Mutation> {
  const field = fc.constantFrom(...fields);
  const valueFor = (name: string) => (NEAR_MISSES[name] ? fc.oneof(hostileValue, fc.constantFrom(...NEAR_MISSES[name]!)) : hostileValue);
  const kinds = {
    drop: field.map((name): Mutation => ({ kind: 'drop', field: name })),
    set: field.chain((name) => valueFor(name).map((value): Mutation => ({ kind: 'set', field: name, value }))),
    repeat: field.chain((name) => valueFor(name).map((value): Mutation => ({ kind: 'repeat', field: name, value }))),
    add: fc.tuple(hostileKey, hostileValue).map(([key, value]): Mutation => ({ kind: 'add', key, value })),
  };
  return kind ? kinds[kind] : fc.oneof(kinds.drop, kinds.set, kinds.repeat, kinds.add);
}

export function applyMutations(base: Record<string, unknown>, mutations: Mutation[]): RawJson {
  const entries = Object.entries(base);
  for (const change of mutations) {
    if (change.kind === 'drop') entries.splice(0, entries.length, ...entries.filter(([key]) => key !== change.field));
    if (change.kind === 'set') {
      const index = entries.findIndex(([key]) => key === change.field);
      if (index >= 0) entries[index] = [change.field, change.value];
      else entries.push([change.field, change.value]);
    }
    if (change.kind === 'repeat') entries.push([change.field, change.value]);
    if (change.kind === 'add') entries.push([change.key, change.value]);
  }
  return jsonObject(entries);
}

/** Ways to break a body's text: not a JSON object, not JSON at all, too deep or too big; each named for the bounded test. */
export const BROKEN_BODIES: [string, (validText: fc.Arbitrary<string>) => fc.Arbitrary<string | undefined>][] = [
  ['body cut short', (valid) => valid.chain((text) => fc.nat({ max: Math.max(0, text.length - 1) }).map((cut) => text.slice(0, cut)))],
  ['body with a trailing comma', (valid) => valid.map((text) => `${text},`)],
  ['body in single quotes', (valid) => valid.map((text) => text.replaceAll('"', "'"))],
  ['body after a byte-order mark', (valid) => valid.map((text) => `\uFEFF${text}`)],
  ['body twice', (valid) => valid.map((text) => `${text}${text}`)],
  [
    'body JSON but not an object',
    () =>
      fc.constantFrom('[]', '[{}]', '1', '"text"', 'null', 'true', '{', '}', '{"a":}', '{"a" 1}', 'undefined', 'NaN', '{,}', '{"a":1,}'),
  ],
  ['body empty or none', () => fc.constantFrom(undefined, '', '   ', '\n')],
  [
    'body nested arrays 100-2,600 deep',
    () => fc.integer({ min: 100, max: 2_600 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  ],
  [
    'body nested objects 100-2,600 deep',
    () => fc.integer({ min: 100, max: 2_600 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  ],
  [
    'body at or over 16 KiB',
    () => fc.integer({ min: MAX_BODY_BYTES - 10, max: 40 * 1024 }).map((size) => `{"first_name":"${'y'.repeat(size)}"}`),
  ],
  ['body of junk text', () => hostileString],
];

/** Text that is not a JSON object, or not JSON at all, or too big. */
function brokenBody(validText: fc.Arbitrary<string>): fc.Arbitrary<string | undefined> {
  return fc.oneof(...BROKEN_BODIES.map(([, broken]) => broken(validText)));
}

/** A PIN login of the right shape for a device no one bound (no signature can be right): refused 401 before any write. */
function loginPinBase(): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record({
      deviceKey: fc.stringMatching(/^[0-9a-f]{32}$/),
      nonce: fc.stringMatching(/^[A-Za-z0-9_-]{16,64}$/),
      signature: fc.base64String({ minLength: 88, maxLength: 96 }),
    })
    .map(({ deviceKey, nonce, signature }) => ({
      device_key: deviceKey,
      login_pin: '2580',
      timestamp: Math.floor(Date.now() / 1000),
      nonce,
      signature,
    }));
}

/** The seed's sample registration, with a number from the fixture and an unknown referral code. */
function registrationBase(fixture: HostileFixture): fc.Arbitrary<Record<string, unknown>> {
  return fc.record({ phone: fc.constantFrom(...fixture.phoneNumbers), userType: fc.constantFrom(1, 2) }).map(({ phone, userType }) => ({
    ...userRegisterEndpoint.examples.request,
    phone_number: phone,
    user_type: userType,
    email: `ada.${phone}@example.com`,
    referral_code: UNKNOWN_REFERRAL_CODE,
  }));
}

function codeTargetBase(fixture: HostileFixture, withOtp: boolean): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record({
      phone: fc.constantFrom(...fixture.phoneNumbers),
      userType: fc.constantFrom(1, 2),
      otpType: fc.constantFrom(1, 2, 3, 4),
      otp: fc.stringMatching(OTP_CODE_PATTERN),
    })
    .map(({ phone, userType, otpType, otp }) => ({
      dial_code: '+1',
      phone_number: phone,
      user_type: userType,
      otp_type: otpType,
      ...(withOtp ? { otp } : {}),
    }));
}

/**
 * Keeps a registration body refused before any hashing: the unknown referral code stays in it
 * (a valid body then stops at INVALID_REFERRAL_CODE), so thousands of runs stay cheap.
 */
const keepsUnknownReferralCode = (mutations: Mutation[]) =>
  mutations.every(
    (change) =>
      change.kind === 'add' || change.field !== 'referral_code' || (change.kind !== 'drop' && change.value !== '' && change.value !== null),
  );

/** An authorization for an amount of 0: refused before the PIN is counted, whatever else a run changes. */
const AUTHORIZATION_BASE = { ...endpoints.transactionAuthorization.examples.request, amount: '0' };
const keepsZeroAmount = (mutations: Mutation[]) =>
  mutations.every(
    (change) => change.kind === 'add' || change.field !== 'amount' || change.kind === 'drop' || change.value === AUTHORIZATION_BASE.amount,
  );

/** An endpoint's body before any change, and the changes a run may not make to it (they would make it succeed). */
interface BaseBody {
  base: fc.Arbitrary<Record<string, unknown>>;
  keep?: (mutations: Mutation[]) => boolean;
}

/**
 * The bases of the endpoints that need one of their own: to keep a run from succeeding and
 * writing, or to name the fixture's users and numbers. Any other endpoint starts from its example
 * request in the route table, or {} (baseBody): a new one needs an entry only if it must be kept
 * from succeeding. userPhoneChange's example is refused the fixture's sessions (not fresh, 14).
 */
const BASE_BODIES: Partial<Record<OperationName, (fixture: HostileFixture) => BaseBody>> = {
  userRegister: (fixture) => ({ base: registrationBase(fixture), keep: keepsUnknownReferralCode }),
  referralProgram: (fixture) => ({ base: fc.constantFrom(...fixture.userIds).map((userId) => ({ user_id: userId })) }),
  logout: () => ({ base: fc.constantFrom<Record<string, unknown>>({}, { scope: 'current' }, { scope: 'others' }, { scope: 'all' }) }),
  loginPin: () => ({ base: loginPinBase() }),
  // Shaped as a refresh token of a fixture user, for a session no one has: refused 401, nothing written.
  tokenRefresh: (fixture) => ({
    base: fc
      .record({
        userId: fc.constantFrom(...fixture.userIds),
        sessionId: fc.stringMatching(/^[0-9a-f]{32}$/),
        random: fc.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      })
      .map(({ userId, sessionId, random }) => ({ refresh_token: `${userId}.${sessionId}.1.1.${random}.${random}` })),
  }),
  // A body with a field the user may not change: refused 400 naming it, whatever else a run changes, never written.
  userProfileUpdate: () => ({
    base: fc.constant<Record<string, unknown>>({ first_name: 'Ada', status_id: 1 }),
    keep: (mutations) => mutations.every((change) => change.kind === 'add' || change.field !== 'status_id'),
  }),
  // A device no one bound: nothing removed.
  devicesRemove: () => ({ base: fc.stringMatching(/^[0-9a-f]{32}$/).map((deviceKey) => ({ device_key: deviceKey })) }),
  // A current PIN no fixture user has: a change is refused (17, then 18), never made.
  changePin: () => ({ base: fc.constantFrom(1, 2).map((pinType) => ({ pin_type: pinType, current_pin: '8642', new_pin: '7153' })) }),
  // The fixture's sessions began by registration: without a valid proof, 14, never made.
  resetPin: () => ({ base: fc.constantFrom(1, 2).map((pinType) => ({ pin_type: pinType, new_pin: '7153' })) }),
  notificationsRead: (fixture) => ({
    base: fc.constantFrom<Record<string, unknown>>({ all: 1 }, { all: 1, before: 1_795_000_000 }, { ids: fixture.userIds }),
  }),
  transactionAuthorization: () => ({ base: fc.constant<Record<string, unknown>>(AUTHORIZATION_BASE), keep: keepsZeroAmount }),
  loginPhone: (fixture) => ({ base: codeTargetBase(fixture, false) }),
  verifyOtp: (fixture) => ({ base: codeTargetBase(fixture, true) }),
};

/** The endpoint's own base, else its example request as the route table gives it, else {}. */
export function baseBody(endpoint: OperationName, fixture: HostileFixture): BaseBody {
  const own = BASE_BODIES[endpoint];
  if (own) return own(fixture);
  const { examples }: Endpoint = endpoints[endpoint];
  return { base: fc.constant((examples.request ?? {}) as Record<string, unknown>) };
}

export function bodyFor(endpoint: EndpointName, fixture: HostileFixture): fc.Arbitrary<string | undefined> {
  if (endpoint === 'notFound') return brokenBody(fc.constant('{}'));
  const { base, keep = () => true } = baseBody(endpoint, fixture);
  const mutations = fc.array(mutation(FIELDS[endpoint]), { minLength: endpoint === 'userRegister' ? 1 : 0, maxLength: 5 }).filter(keep);
  return fc.oneof(
    { weight: 8, arbitrary: fc.tuple(base, mutations).map(([body, changes]) => applyMutations(body, changes).text) },
    { weight: 2, arbitrary: brokenBody(base.map((body) => JSON.stringify(body))) },
    // A GET's body is optional: often none at all.
    { weight: isGet(endpoint) ? 3 : 0, arbitrary: fc.constant(undefined) },
  );
}

/**
 * Valid registrations carrying hostile extras (prototype keys, privileged attribute names,
 * unknown fields) and Unicode names within limits: each must register, and store none of it.
 */
export function acceptedRegistration(newPhoneNumber: () => string): fc.Arbitrary<string> {
  const name = fc.oneof(
    fc.constantFrom('Ada', 'e\u0301', '\u{1F469}\u200D\u{1F469}\u200D\u{1F467}', 'İß', '\u202EevE', 'Ω'.repeat(100), "O'Brien; DROP TABLE"),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).filter((text) => text.trim().length > 0),
  );
  const extras = fc.array(fc.tuple(fc.constantFrom(...PROTO_KEYS, ...PRIVILEGED_KEYS, 'kyc_status', 'status_id'), hostileValue), {
    minLength: 1,
    maxLength: 6,
  });
  return fc
    .tuple(name, name, extras)
    .map(([first, last, extra]) => {
      const phone = newPhoneNumber();
      const body: [string, unknown][] = [
        ['dial_code', '+1'],
        ['phone_number', phone],
        ['user_type', 2],
        ['first_name', first],
        ['last_name', last],
        ['password', 'correct horse battery'],
        ['login_pin', '2580'],
        ['transaction_pin', '1397'],
        ['email', `ada.${phone}@example.com`],
        ...extra.filter(([key]) => key !== 'kyc_status' && key !== 'status_id'),
        // A self-registration may send these; they are forced to pending and active whatever they say.
        ...(extra.some(([key]) => key === 'kyc_status') ? ([['kyc_status', 2]] as [string, unknown][]) : []),
        ...(extra.some(([key]) => key === 'status_id') ? ([['status_id', 7]] as [string, unknown][]) : []),
      ];
      return jsonObject(body).text;
    })
    .filter((body) => Buffer.byteLength(body, 'utf8') <= MAX_BODY_BYTES);
}
