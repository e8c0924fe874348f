import fc from 'fast-check';

// The hostile values the request generators draw from: strings (Unicode edge cases, injections,
// numbers as text, huge ones), numbers, object keys (prototype keys, stored attributes), any JSON
// value, and JSON objects written as they are, with __proto__ or a key twice.

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
export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
/** Keys naming stored attributes or privileges a client must never set. */
export const PRIVILEGED_KEYS = [
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

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('', ' ', ...UNICODE_EDGE_CASES, ...INJECTION_STRINGS, ...NUMBER_LIKE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.integer({ min: 101, max: 20_000 }).map((length) => 'x'.repeat(length)) },
);

export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, 1, 2, 3, 4, 5, -1, 1.5, 2 ** 53, -(2 ** 53), 1e308, 631152000000, 4102444800000, 2025550143),
  fc.integer(),
  fc.double(),
);

export const hostileKey = fc.oneof(fc.constantFrom(...PROTO_KEYS, ...PRIVILEGED_KEYS), hostileString);

/** Any JSON value a client could send, nested objects and arrays included. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
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
export class RawJson {
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
export function jsonObject(entries: [string, unknown][]): RawJson {
  return new RawJson(`{${entries.map(([key, value]) => `${JSON.stringify(key)}:${stringify(value)}`).join(',')}}`);
}
