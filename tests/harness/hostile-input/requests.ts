import fc from 'fast-check';
import { applyMutations, BROKEN_BODIES, baseBody, bodyFor, type Mutation, mutation } from './bodies.js';
import type { HostileFixture } from './fixture.js';
import {
  extraHeaders,
  headerRecord,
  WRONG_AUTHORIZATIONS,
  WRONG_COMPANY_IDS,
  WRONG_CONTENT_TYPES,
  wrongAuthorization,
  wrongCompanyId,
} from './headers.js';
import { type EndpointName, FIELDS, PATHS, QUERY_FIELDS, takesQuery } from './routes.js';
import { hostileString, PROTO_KEYS } from './values.js';

// Generators of hostile requests for every endpoint: wrong types, missing and extra fields,
// huge and empty strings, Unicode edge cases, numbers as strings and the reverse, nested
// objects, __proto__ and constructor keys, duplicate keys, malformed JSON, wrong content
// types, non-hex and over-long CompanyID, and forged tokens and cursors. Shared by
// tests/hardening/hostile-input.test.ts (a bounded run) and scripts/fuzz.ts (a long one).
// No vitest here. What they know of the endpoints they read from the route table (routes.ts).

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

/** Query entries of names the endpoints take (QUERY_FIELDS), prototype keys and junk, with ids, cursors (forged too), numbers and junk as values. */
function queryEntries(fixture: HostileFixture, minLength: number): fc.Arbitrary<Record<string, string>> {
  const value = fc.oneof(
    hostileString,
    fc.constantFrom(...fixture.userIds, ...fixture.userIds.map((id) => id.toUpperCase()), ...fixture.cursors),
    fc.constantFrom('1', '20', '100', '0', '101', '-1', '1.5', '1e2', ' 5', '0x10', '00001'),
    fc.constantFrom(...fixture.cursors).map((cursor) => `${cursor.slice(0, -2)}AA`),
    fc.constantFrom(...fixture.cursors).map((cursor) => cursor.split('.').reverse().join('.')),
  );
  const key = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...QUERY_FIELDS) }, fc.constantFrom(...PROTO_KEYS), hostileString);
  return fc.array(fc.tuple(key, value), { minLength, maxLength: 4 }).map((entries) => Object.fromEntries(entries));
}

function queryFor(endpoint: EndpointName, fixture: HostileFixture): fc.Arbitrary<Record<string, string> | undefined> {
  const query = queryEntries(fixture, 0);
  return takesQuery(endpoint) ? fc.oneof(query, fc.constant(undefined)) : fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, query);
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
