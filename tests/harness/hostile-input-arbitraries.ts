import fc from 'fast-check';
import { endpoints } from '../../lib/api/endpoints.js';
import { userRegisterEndpoint } from '../../lib/api/user-register-endpoint.js';
import type { Endpoint } from '../../lib/http/endpoint.js';
import { OTP_CODE_PATTERN } from '../../lib/otp/otp-codes.js';

// Generators of hostile requests for every endpoint: wrong types, missing and extra fields,
// huge and empty strings, Unicode edge cases, numbers as strings and the reverse, nested
// objects, __proto__ and constructor keys, duplicate keys, malformed JSON, wrong content
// types, non-hex and over-long CompanyID, and forged tokens and cursors. Shared by
// tests/hardening/hostile-input.test.ts (a bounded run) and scripts/fuzz.ts (a long one).
// No vitest here.

import type { EndpointName } from './in-process-service.js';

export type { EndpointName };

/** What the generators may use from the data a run has set up. */
export interface HostileFixture {
  /** The company under test: its stored data must not change on a refusal. */
  companyId: string;
  /** Another active company. */
  otherCompanyId: string;
  /** Valid access tokens: of the company's customer and employee, and of the other company. */
  tokens: string[];
  /** User ids of those accounts. */
  userIds: string[];
  /** National numbers valid for +1: registered ones and a free one. */
  phoneNumbers: string[];
  /** Cursors signed by the service, for lists of the company and of the other company. */
  cursors: string[];
}

/** An API Gateway request before it becomes an event: everything a client controls. */
export interface HostileRequest {
  endpoint: EndpointName;
  method: string;
  path: string;
  headers: Record<string, string>;
  query: Record<string, string> | undefined;
  body: string | undefined;
  isBase64Encoded: boolean;
}

const route = ({ method, path }: Endpoint) => ({ method, path });

export const PATHS: Record<EndpointName, { method: string; path: string }> = {
  userRegister: route(endpoints.userRegister),
  loginPhone: route(endpoints.loginPhone),
  verifyOtp: route(endpoints.verifyOtp),
  referralProgram: route(endpoints.referralProgram),
  loginPin: route(endpoints.loginPin),
  devices: route(endpoints.devices),
  devicesRemove: route(endpoints.devicesRemove),
  changePin: route(endpoints.changePin),
  resetPin: route(endpoints.resetPin),
  notifications: route(endpoints.notifications),
  notificationsRead: route(endpoints.notificationsRead),
  transactionAuthorization: route(endpoints.transactionAuthorization),
  tokenRefresh: route(endpoints.tokenRefresh),
  userProfile: route(endpoints.userProfile),
  userProfileUpdate: route(endpoints.userProfileUpdate),
  userExport: route(endpoints.userExport),
  // The fixture's sessions began by registration: a phone change is refused them (400 code 14), never made.
  userPhoneChange: route(endpoints.userPhoneChange),
  // The fixture's session began by registration: a deletion is refused it (400 code 14), never done.
  userDelete: route(endpoints.userDelete),
  // After the others: a logout that succeeds ends one of the fixture's sessions.
  logout: route(endpoints.logout),
  notFound: { method: 'POST', path: '/wallet/v3/auth/nothing_here' },
};

/** The service's body limit (MAX_BODY_BYTES default): an accepted body must fit in it. */
const MAX_BODY_BYTES = 16 * 1024;

/** A referral code no user can hold (real ones have 8 characters): registration stops at it, before hashing. */
const UNKNOWN_REFERRAL_CODE = 'NOSUCHCODE';

const UNICODE_EDGE_CASES = [
  '\u0000',
  '\uD800',
  '\uDFFF',
  'a\uD83D',
  '\uFEFF',
  '\u200B',
  '\u202E',
  'e\u0301',
  '\u{1F469}\u200D\u{1F469}\u200D\u{1F467}',
  '１２３４',
  '٠١٢٣٤٥',
  '\u00A0',
  '\r\n',
  '\t',
  'İ',
  'ß',
  '\u2028',
  '\uFFFF',
  '𝟘𝟙𝟚𝟛',
  'Ω'.repeat(101),
];
const INJECTION_STRINGS = [
  "' OR '1'='1",
  '{"$ne":null}',
  '#',
  'C#',
  '#USER#',
  ':pk',
  'attribute_exists(pk)',
  'pk = :pk OR :x',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j lookup string, sent as it is on purpose.
  '${jndi:ldap://x}',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '%00',
  'NOTIF#',
  '__proto__',
  'constructor',
  'Token',
  '\\u0000',
  'null',
  'undefined',
];
const NUMBER_LIKE_STRINGS = ['1', '2', '3', '0', '-1', '1e3', '0x1F', '1.5', 'NaN', 'Infinity', ' 2 ', '+1', '１', '2025550143'];
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
/** Keys naming stored attributes or privileges a client must never set. */
const PRIVILEGED_KEYS = [
  'pk',
  'sk',
  'company_id',
  'user_id',
  'password_hash',
  'login_pin_hash',
  'referral_count',
  'referred_by',
  'is_admin',
  'expires_at',
];

const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('', ' ', ...UNICODE_EDGE_CASES, ...INJECTION_STRINGS, ...NUMBER_LIKE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.integer({ min: 101, max: 20_000 }).map((length) => 'x'.repeat(length)) },
);

const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, 1, 2, 3, 4, 5, -1, 1.5, 2 ** 53, -(2 ** 53), 1e308, 631152000000, 4102444800000, 2025550143),
  fc.integer(),
  fc.double(),
);

const hostileKey = fc.oneof(fc.constantFrom(...PROTO_KEYS, ...PRIVILEGED_KEYS), hostileString);

/** Any JSON value a client could send, nested objects and arrays included. */
const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.array(fc.tuple(hostileKey, tie('value')), { maxLength: 3 }).map((entries) => jsonObject(entries)),
  ),
})).value;

/** A JSON value whose text is given as is: lets an object carry __proto__ or a key twice. */
class RawJson {
  constructor(readonly text: string) {}
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

function stringify(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(stringify).join(',')}]`;
  return JSON.stringify(value) ?? 'null';
}

/** A JSON object from entries, in order, duplicates and __proto__ kept as written. */
function jsonObject(entries: [string, unknown][]): RawJson {
  return new RawJson(`{${entries.map(([key, value]) => `${JSON.stringify(key)}:${stringify(value)}`).join(',')}}`);
}

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
type Mutation =
  | { kind: 'drop'; field: string }
  | { kind: 'set'; field: string; value: unknown }
  /** The field written twice: JSON.parse keeps the later value. */
  | { kind: 'repeat'; field: string; value: unknown }
  | { kind: 'add'; key: string; value: unknown };

/** A change to one field of a body, of a given kind or any. */
function mutation(fields: string[], kind?: Mutation['kind']): fc.Arbitrary<Mutation> {
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

function applyMutations(base: Record<string, unknown>, mutations: Mutation[]): RawJson {
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
const BROKEN_BODIES: [string, (validText: fc.Arbitrary<string>) => fc.Arbitrary<string | undefined>][] = [
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

const FIELDS: Record<Exclude<EndpointName, 'notFound'>, string[]> = {
  userRegister: [
    'dial_code',
    'phone_number',
    'user_type',
    'first_name',
    'last_name',
    'account_number_prefix',
    'password',
    'email',
    'login_pin',
    'transaction_pin',
    'status_id',
    'birth_date',
    'image',
    'kyc_status',
    'country_id',
    'kyc_process_status',
    'location_point',
    'location_poin',
    'device_type',
    'device_id',
    'parent_user_id',
    'device_unique_id',
    'referral_code',
    'phone_verification_token',
    'cretaed_by',
  ],
  loginPhone: ['dial_code', 'phone_number', 'user_type', 'otp_type'],
  verifyOtp: ['dial_code', 'phone_number', 'user_type', 'otp_type', 'otp'],
  referralProgram: ['user_id'],
  loginPin: ['device_key', 'login_pin', 'timestamp', 'nonce', 'signature'],
  // It takes no body: whatever one holds is ignored.
  devices: ['device_key'],
  devicesRemove: ['device_key'],
  changePin: ['pin_type', 'current_pin', 'new_pin'],
  resetPin: ['pin_type', 'new_pin', 'phone_verification_token'],
  notifications: ['unread'],
  notificationsRead: ['ids', 'all', 'before'],
  transactionAuthorization: ['transaction_pin', 'amount', 'currency', 'payee', 'reference'],
  tokenRefresh: ['refresh_token'],
  // They take no body: whatever one holds is ignored.
  userProfile: ['user_id'],
  userExport: ['user_id'],
  userPhoneChange: ['dial_code', 'phone_number', 'phone_verification_token', 'user_type'],
  userDelete: ['user_id', 'confirm'],
  userProfileUpdate: ['first_name', 'last_name', 'email', 'image', 'birth_date', 'location_point', 'phone_number', 'status_id'],
  logout: ['scope'],
};

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
/** The endpoint's body before any change, and the changes a run may not make to it (they would make it succeed). */
function baseBody(
  endpoint: Exclude<EndpointName, 'notFound'>,
  fixture: HostileFixture,
): { base: fc.Arbitrary<Record<string, unknown>>; keep?: (mutations: Mutation[]) => boolean } {
  switch (endpoint) {
    case 'userRegister':
      return { base: registrationBase(fixture), keep: keepsUnknownReferralCode };
    case 'referralProgram':
      return { base: fc.constantFrom(...fixture.userIds).map((userId) => ({ user_id: userId })) };
    case 'logout':
      return { base: fc.constantFrom<Record<string, unknown>>({}, { scope: 'current' }, { scope: 'others' }, { scope: 'all' }) };
    case 'loginPin':
      return { base: loginPinBase() };
    case 'tokenRefresh':
      // Shaped as a refresh token of a fixture user, for a session no one has: refused 401, nothing written.
      return {
        base: fc
          .record({
            userId: fc.constantFrom(...fixture.userIds),
            sessionId: fc.stringMatching(/^[0-9a-f]{32}$/),
            random: fc.stringMatching(/^[A-Za-z0-9_-]{43}$/),
          })
          .map(({ userId, sessionId, random }) => ({ refresh_token: `${userId}.${sessionId}.1.1.${random}.${random}` })),
      };
    case 'devices':
    case 'notifications':
    case 'userProfile':
    case 'userExport':
    case 'userDelete':
      return { base: fc.constant({}) };
    case 'userProfileUpdate':
      // A body with a field the user may not change: refused 400 naming it, whatever else a run changes, never written.
      return {
        base: fc.constant<Record<string, unknown>>({ first_name: 'Ada', status_id: 1 }),
        keep: (mutations) => mutations.every((change) => change.kind === 'add' || change.field !== 'status_id'),
      };
    case 'devicesRemove':
      return { base: fc.stringMatching(/^[0-9a-f]{32}$/).map((deviceKey) => ({ device_key: deviceKey })) };
    case 'changePin':
      // A current PIN no fixture user has: a change is refused (17, then 18), never made.
      return { base: fc.constantFrom(1, 2).map((pinType) => ({ pin_type: pinType, current_pin: '8642', new_pin: '7153' })) };
    case 'userPhoneChange':
      // The fixture's sessions began by registration: not fresh, 14, never made.
      return {
        base: fc.constant<Record<string, unknown>>({
          dial_code: '+1',
          phone_number: '2025550143',
          phone_verification_token: 'q3Zk0uJ8yVtq0l2b6c9X1sFhR4mN7pWd',
        }),
      };
    case 'resetPin':
      // The fixture's sessions began by registration: without a valid proof, 14, never made.
      return { base: fc.constantFrom(1, 2).map((pinType) => ({ pin_type: pinType, new_pin: '7153' })) };
    case 'notificationsRead':
      return { base: fc.constantFrom<Record<string, unknown>>({ all: 1 }, { all: 1, before: 1_795_000_000 }, { ids: fixture.userIds }) };
    case 'transactionAuthorization':
      return { base: fc.constant<Record<string, unknown>>(AUTHORIZATION_BASE), keep: keepsZeroAmount };
    case 'loginPhone':
    case 'verifyOtp':
      return { base: codeTargetBase(fixture, endpoint === 'verifyOtp') };
  }
}

const isGet = (endpoint: EndpointName) => PATHS[endpoint].method === 'GET';

function bodyFor(endpoint: EndpointName, fixture: HostileFixture): fc.Arbitrary<string | undefined> {
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

/** Query entries of names the lists take, prototype keys and junk, with ids, cursors (forged too), numbers and junk as values. */
function queryEntries(fixture: HostileFixture, minLength: number): fc.Arbitrary<Record<string, string>> {
  const value = fc.oneof(
    hostileString,
    fc.constantFrom(...fixture.userIds, ...fixture.userIds.map((id) => id.toUpperCase()), ...fixture.cursors),
    fc.constantFrom('1', '20', '100', '0', '101', '-1', '1.5', '1e2', ' 5', '0x10', '00001'),
    fc.constantFrom(...fixture.cursors).map((cursor) => `${cursor.slice(0, -2)}AA`),
    fc.constantFrom(...fixture.cursors).map((cursor) => cursor.split('.').reverse().join('.')),
  );
  const key = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('user_id', 'limit', 'cursor', 'unread') },
    fc.constantFrom(...PROTO_KEYS),
    hostileString,
  );
  return fc.array(fc.tuple(key, value), { minLength, maxLength: 4 }).map((entries) => Object.fromEntries(entries));
}

function queryFor(endpoint: EndpointName, fixture: HostileFixture): fc.Arbitrary<Record<string, string> | undefined> {
  const query = queryEntries(fixture, 0);
  return endpoint === 'referralProgram' || endpoint === 'notifications'
    ? fc.oneof(query, fc.constant(undefined))
    : fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, query);
}

/** CompanyIDs that are not the company's own as sent, by name, with their weights in the mixed requests. */
const WRONG_COMPANY_IDS = (fixture: HostileFixture): [string, fc.Arbitrary<string | undefined>, number][] => [
  ['CompanyID in upper case or padded', fc.constantFrom(fixture.companyId.toUpperCase(), ` ${fixture.companyId}\t`), 2],
  ["another company's id", fc.constant(fixture.otherCompanyId), 2],
  ['an unknown CompanyID', fc.stringMatching(/^[0-9a-f]{32}$/), 2],
  ['a CompanyID too short', fc.stringMatching(/^[0-9a-f]{0,31}$/), 1],
  ['a CompanyID too long', fc.stringMatching(/^[0-9a-f]{33,80}$/), 1],
  ['a CompanyID of 32 characters, not hex', fc.string({ minLength: 32, maxLength: 32 }), 1],
  ['a CompanyID of 32 binary characters', fc.string({ unit: 'binary', minLength: 32, maxLength: 32 }), 1],
  ['a junk CompanyID', hostileString, 1],
  ['no CompanyID', fc.constant(undefined), 1],
];

/** A CompanyID that is not the company's own as sent: another case, padding, another company, not hex, too short or long, none. */
function wrongCompanyId(fixture: HostileFixture): fc.Arbitrary<string | undefined> {
  return fc.oneof(...WRONG_COMPANY_IDS(fixture).map(([, arbitrary, weight]) => ({ weight, arbitrary })));
}

/** Ways to send a token wrong: the scheme's case or name, no scheme, cut, lengthened, twice. */
const TOKEN_MISUSES: ((token: string) => string)[] = [
  (token) => `token  ${token}`,
  (token) => `Bearer ${token}`,
  (token) => token,
  (token) => `Token ${token.slice(0, -1)}`,
  (token) => `Token ${token}A`,
  (token) => `Token ${token} ${token}`,
];

/** Authorization values that are not a live token as sent, by name, with their weights in the mixed requests. */
const WRONG_AUTHORIZATIONS: [string, (tokens: string[]) => fc.Arbitrary<string>, number][] = [
  [
    'a token misused (scheme, case, cut, lengthened, twice)',
    (tokens) => fc.tuple(fc.constantFrom(...tokens), fc.constantFrom(...TOKEN_MISUSES)).map(([token, misuse]) => misuse(token)),
    TOKEN_MISUSES.length,
  ],
  ['a forged token', () => fc.stringMatching(/^Token [A-Za-z0-9_-]{16,300}$/), 1],
  ['a token of junk', () => hostileString.map((value) => `Token ${value}`), 1],
  ['a junk Authorization', () => hostileString, 1],
];

/** An Authorization value that is not a live token as sent: a misused one, a forged one, or junk. */
function wrongAuthorization(tokens: string[]): fc.Arbitrary<string> {
  return fc.oneof(...WRONG_AUTHORIZATIONS.map(([, values, weight]) => ({ weight, arbitrary: values(tokens) })));
}

const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/vnd.api+json',
  'application/jsonx',
  'json',
  '',
  'application/json;',
  'application/xml',
];

const extraHeaders = fc.dictionary(
  fc.oneof(fc.constantFrom(...PROTO_KEYS, 'content-length', 'x-forwarded-for', 'host'), hostileString),
  hostileString,
  { maxKeys: 3 },
);

/** Headers as API Gateway passes them: defineProperty, so a generated "__proto__" header is a header. */
function headerRecord(entries: [string, string | undefined][]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (value !== undefined) Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return headers;
}

/** Everything a client controls in a request, as the generators build it. */
interface RequestParts {
  companyIdName: string;
  companyId: string | undefined;
  authorizationName: string;
  authorization: string | undefined;
  contentType: string | undefined;
  extras: Record<string, string>;
  query: Record<string, string> | undefined;
  body: string | undefined;
  base64: 'no' | 'encoded' | 'garbage';
}

function assemble(endpoint: EndpointName, parts: RequestParts): HostileRequest {
  const { body, base64 } = parts;
  return {
    endpoint,
    ...PATHS[endpoint],
    headers: headerRecord([
      ...Object.entries(parts.extras),
      [parts.companyIdName, parts.companyId],
      [parts.authorizationName, parts.authorization],
      ['content-type', parts.contentType],
    ]),
    query: parts.query,
    body: base64 === 'no' || body === undefined ? body : base64 === 'encoded' ? Buffer.from(body).toString('base64') : `${body}%%`,
    isBase64Encoded: base64 !== 'no' && body !== undefined,
  };
}

/** Whole hostile requests to one endpoint: headers, query string and body, each hostile or not. */
export function hostileRequest(endpoint: EndpointName, fixture: HostileFixture): fc.Arbitrary<HostileRequest> {
  const token = fc.constantFrom(...fixture.tokens);
  return fc
    .record({
      companyIdName: fc.constantFrom('CompanyID', 'companyid', 'COMPANYID', 'companyId'),
      // Mostly the right company, so most requests get past the chain into validation and the store.
      companyId: fc.oneof({ weight: 40, arbitrary: fc.constant(fixture.companyId) }, { weight: 12, arbitrary: wrongCompanyId(fixture) }),
      authorizationName: fc.constantFrom('Authorization', 'authorization'),
      authorization: fc.oneof(
        { weight: 12, arbitrary: fc.constant(undefined) },
        { weight: 12, arbitrary: token.map((value) => `Token ${value}`) },
        { weight: 9, arbitrary: wrongAuthorization(fixture.tokens) },
      ),
      contentType: fc.oneof(
        { weight: 12, arbitrary: fc.constant('application/json') },
        fc.constant(undefined),
        fc.constantFrom(...WRONG_CONTENT_TYPES),
        hostileString,
      ),
      extras: extraHeaders,
      query: queryFor(endpoint, fixture),
      body: bodyFor(endpoint, fixture),
      base64: fc.oneof({ weight: 9, arbitrary: fc.constant('no' as const) }, fc.constantFrom('encoded' as const, 'garbage' as const)),
    })
    .map((parts) => assemble(endpoint, parts));
}

/** The part of a request a generator makes hostile. */
export type HostilePart = 'companyId' | 'authorization' | 'content-type' | 'header' | 'query' | 'body' | 'broken body' | 'base64';

/**
 * One generator of a hostile part: given a request's valid parts, the part it makes hostile. The
 * mixed requests above draw every part at once; these draw one, the rest left valid, so a bounded
 * run can meet each generator a few times per endpoint, and a live account's request can carry one.
 */
export interface PartGenerator {
  name: string;
  /** Which part it changes. */
  part: HostilePart;
  of: (valid: RequestParts & { bodyObject?: Record<string, unknown> }) => fc.Arbitrary<Partial<RequestParts>>;
}

const partGenerator = (
  part: HostilePart,
  name: string,
  of: (valid: RequestParts & { bodyObject?: Record<string, unknown> }) => fc.Arbitrary<Partial<RequestParts>>,
): PartGenerator => ({ name, part, of });

/** Every generator of a hostile part for one endpoint; `fixture` gives the other company and the tokens to misuse. */
function partGenerators(
  endpoint: EndpointName,
  fixture: HostileFixture,
  keep: (mutations: Mutation[]) => boolean = () => true,
): PartGenerator[] {
  const bodyChanges: PartGenerator[] = [];
  if (endpoint !== 'notFound') {
    const fields = FIELDS[endpoint];
    for (const [kind, name] of [
      ['drop', 'a field dropped'],
      ['set', 'a field set to a wrong or hostile value'],
      ['repeat', 'a field repeated with another value'],
      ['add', 'a hostile key added'],
    ] as const) {
      bodyChanges.push(
        partGenerator('body', name, ({ bodyObject }) =>
          fc
            .tuple(mutation(fields, kind), fc.array(mutation(fields), { maxLength: 4 }))
            .map(([first, more]) => [first, ...more])
            .filter(keep)
            .map((changes) => ({ body: applyMutations(bodyObject ?? {}, changes).text })),
        ),
      );
    }
  }
  // Body first: a logout that succeeds ends a fixture session, and the field checks need a live one.
  return [
    ...bodyChanges,
    ...BROKEN_BODIES.map(([name, broken]) =>
      partGenerator('broken body', name, ({ body }) => broken(fc.constant(body ?? '{}')).map((text) => ({ body: text }))),
    ),
    partGenerator('base64', 'body base64-encoded', () => fc.constant({ base64: 'encoded' as const })),
    partGenerator('base64', 'body marked base64 but not', () => fc.constant({ base64: 'garbage' as const })),
    partGenerator('companyId', 'CompanyID header named in another case', () =>
      fc.constantFrom('companyid', 'COMPANYID', 'companyId').map((companyIdName) => ({ companyIdName })),
    ),
    partGenerator('authorization', 'Authorization header named in lower case', () => fc.constant({ authorizationName: 'authorization' })),
    ...WRONG_COMPANY_IDS(fixture).map(([name, values]) =>
      partGenerator('companyId', name, () => values.map((companyId) => ({ companyId }))),
    ),
    partGenerator('authorization', 'no token', () => fc.constant({ authorization: undefined })),
    ...WRONG_AUTHORIZATIONS.map(([name, values]) =>
      partGenerator('authorization', name, ({ authorization }) =>
        values([authorization?.replace(/^Token /, '') || fixture.tokens[0]!]).map((value) => ({ authorization: value })),
      ),
    ),
    partGenerator('content-type', 'no content type', () => fc.constant({ contentType: undefined })),
    partGenerator('content-type', 'another content type', () =>
      fc.constantFrom(...WRONG_CONTENT_TYPES).map((contentType) => ({ contentType })),
    ),
    partGenerator('content-type', 'a junk content type', () => hostileString.map((contentType) => ({ contentType }))),
    partGenerator('header', 'extra headers', () =>
      extraHeaders.filter((extras) => Object.keys(extras).length > 0).map((extras) => ({ extras })),
    ),
    partGenerator('query', 'a query of junk, ids and cursors', ({ query }) =>
      queryEntries(fixture, 1).map((entries) => ({ query: { ...query, ...entries } })),
    ),
  ];
}

/** The valid parts of a request to the endpoint: the company, a live token of it, JSON, the endpoint's body as the run sends it. */
function validParts(
  endpoint: EndpointName,
  fixture: HostileFixture,
): fc.Arbitrary<RequestParts & { bodyObject?: Record<string, unknown> }> {
  const bodyObject = endpoint === 'notFound' ? fc.constant({}) : baseBody(endpoint, fixture).base;
  return fc
    .record({
      // The company's customer and employee (the third token is the other company's).
      token: fc.constantFrom(...fixture.tokens.slice(0, 2)),
      bodyObject,
    })
    .map(({ token, bodyObject }) => ({
      companyIdName: 'CompanyID',
      companyId: fixture.companyId,
      authorizationName: 'Authorization',
      authorization: `Token ${token}`,
      contentType: 'application/json',
      extras: {},
      query: undefined,
      body: JSON.stringify(bodyObject),
      bodyObject,
      base64: 'no' as const,
    }));
}

/**
 * Requests to one endpoint by generator: each a valid request with that generator's part made
 * hostile. tests/hardening/hostile-input.test.ts sends a few of each for every endpoint, so no
 * generator goes unmet whatever a mixed run happens to draw.
 */
export function hostileRequestsByGenerator(
  endpoint: EndpointName,
  fixture: HostileFixture,
): { name: string; requests: fc.Arbitrary<HostileRequest> }[] {
  const keep = endpoint === 'notFound' ? undefined : baseBody(endpoint, fixture).keep;
  const valid = validParts(endpoint, fixture);
  return partGenerators(endpoint, fixture, keep).map(({ name, of }) => ({
    name,
    requests: valid.chain((parts) => of(parts).map((change) => assemble(endpoint, { ...parts, ...change }))),
  }));
}

/** The user_register request of a company for a JSON body, in the form the hostile-input checks take. */
export function registrationRequest(companyId: string, body: string) {
  return {
    endpoint: 'userRegister' as const,
    ...PATHS.userRegister,
    headers: { CompanyID: companyId, 'content-type': 'application/json' },
    query: undefined,
    body,
    isBase64Encoded: false,
  };
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

/** A valid request of a live account (tests/harness/live-requests.ts), before one part of it is made hostile. */
export interface ValidRequest {
  endpoint: EndpointName;
  /** CompanyID, and Authorization where the endpoint takes a token. */
  headers: { CompanyID: string; Authorization?: string };
  query?: Record<string, string>;
  /** None for a GET. */
  body?: Record<string, unknown>;
}

function partsOf(valid: ValidRequest): RequestParts & { bodyObject?: Record<string, unknown> } {
  return {
    companyIdName: 'CompanyID',
    companyId: valid.headers.CompanyID,
    authorizationName: 'Authorization',
    authorization: valid.headers.Authorization,
    contentType: valid.body === undefined ? undefined : 'application/json',
    extras: {},
    query: valid.query,
    body: valid.body === undefined ? undefined : JSON.stringify(valid.body),
    bodyObject: valid.body,
    base64: 'no',
  };
}

/** A valid request as API Gateway hands it over, with nothing made hostile. */
export function requestOf(valid: ValidRequest): HostileRequest {
  return assemble(valid.endpoint, partsOf(valid));
}

/** How often a live request has each part made hostile, or none (each part's generators alike within it). */
const LIVE_PART_WEIGHTS: Record<HostilePart | 'none', number> = {
  none: 4,
  body: 4,
  'broken body': 2,
  query: 2,
  header: 2,
  companyId: 1,
  authorization: 1,
  'content-type': 1,
  base64: 1,
};

/**
 * A valid request with at most one part made hostile by one of the generators above: a field of
 * its body changed, dropped, repeated or added, its body broken, junk in its query, extra headers,
 * its CompanyID, token or content type wrong, or its body base64-encoded. The rest stays valid, so
 * many of them reach the endpoint's success path (a 200) and the writes behind it.
 */
export function withOneHostilePart(
  valid: ValidRequest,
  fixture: HostileFixture,
): fc.Arbitrary<{ part: HostilePart | 'none'; request: HostileRequest }> {
  const parts = partsOf(valid);
  const generators = partGenerators(valid.endpoint, fixture);
  type Drawn = { part: HostilePart | 'none'; request: HostileRequest };
  const choices = (Object.entries(LIVE_PART_WEIGHTS) as [HostilePart | 'none', number][]).flatMap(([part, weight]) => {
    if (part === 'none') return [{ weight, arbitrary: fc.constant<Drawn>({ part, request: assemble(valid.endpoint, parts) }) }];
    const ofPart = generators.filter((generator) => generator.part === part);
    if (!ofPart.length || (valid.body === undefined && (part === 'body' || part === 'base64'))) return [];
    return [
      {
        weight,
        arbitrary: fc
          .constantFrom(...ofPart)
          .chain((generator) => generator.of(parts))
          .map((change): Drawn => ({ part, request: assemble(valid.endpoint, { ...parts, ...change }) })),
      },
    ];
  });
  return fc.oneof(...choices);
}
