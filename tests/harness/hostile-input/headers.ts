import fc from 'fast-check';
import type { HostileFixture } from './fixture.js';
import { hostileString, PROTO_KEYS } from './values.js';

// Hostile headers: CompanyIDs that are not the company's own as sent, Authorization values that
// are not a live token as sent, wrong content types and extra headers, each list named for the
// bounded test and weighted for the mixed requests; and headers as API Gateway passes them.

/** CompanyIDs that are not the company's own as sent, by name, with their weights in the mixed requests. */
export const WRONG_COMPANY_IDS = (fixture: HostileFixture): [string, fc.Arbitrary<string | undefined>, number][] => [
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
export function wrongCompanyId(fixture: HostileFixture): fc.Arbitrary<string | undefined> {
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
export const WRONG_AUTHORIZATIONS: [string, (tokens: string[]) => fc.Arbitrary<string>, number][] = [
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
export function wrongAuthorization(tokens: string[]): fc.Arbitrary<string> {
  return fc.oneof(...WRONG_AUTHORIZATIONS.map(([, values, weight]) => ({ weight, arbitrary: values(tokens) })));
}

export const WRONG_CONTENT_TYPES = [
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

export const extraHeaders = fc.dictionary(
  fc.oneof(fc.constantFrom(...PROTO_KEYS, 'content-length', 'x-forwarded-for', 'host', 'dpop', 'DPoP'), hostileString),
  hostileString,
  { maxKeys: 3 },
);

/** Headers as API Gateway passes them: defineProperty, so a generated "__proto__" header is a header. */
export function headerRecord(entries: [string, string | undefined][]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (value !== undefined) Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return headers;
}
