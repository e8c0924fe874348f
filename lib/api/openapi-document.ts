import { z } from 'zod';
import { CREDENTIAL_REPLAY_SECONDS, IDEMPOTENCY_WINDOW_SECONDS } from '../call.js';
import type { Config } from '../config.js';
import { ErrorCodes, type ErrorName, type FailureDetails, StatusNames } from '../errors.js';
import { API_TAGS, byteSize, duration, type Endpoint } from '../http/endpoint.js';
import { chainErrors } from '../http/middleware.js';
import { HEX_ID_PATTERN } from '../ids.js';
import { JWKS_MAX_AGE_SECONDS } from '../secrets/signing-keys.js';
import { JWKS_PATH, OPENID_CONFIGURATION_PATH, openidConfiguration } from '../sessions/discovery.js';
import { ABSENT_VALUES } from '../validation.js';
import { endpoints } from './endpoints.js';

// The OpenAPI 3.1 description of the API, generated from the same zod schemas that validate
// requests (zod's own JSON Schema output: OpenAPI 3.1 schemas are JSON Schema 2020-12), so
// the document cannot drift from the code. Limits are stated as the configuration sets them
// (the defaults, for docs/openapi.json). `npm run openapi` writes it to docs/openapi.json.

type JsonSchema = Record<string, unknown>;

export function jsonSchema(schema: z.core.$ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' });
  return rest;
}

export const fieldErrorSchema: JsonSchema = {
  type: 'object',
  properties: {
    code: { type: 'integer' },
    field: { type: 'string', description: 'The request field (or header) at fault' },
    detail: { type: 'string', description: 'What is wrong, for a developer' },
  },
  required: ['code', 'field', 'detail'],
  additionalProperties: false,
};

/** How many SMS a text takes, as a refused company/update measured it (lib/sms/sms-segments.ts). */
const smsSizesSchema = (description: string): JsonSchema => ({
  type: 'object',
  description,
  additionalProperties: {
    type: 'object',
    properties: {
      segments: { type: 'integer' },
      encoding: { enum: ['GSM-7', 'UCS-2'] },
      units: { type: 'integer' },
    },
    required: ['segments', 'encoding', 'units'],
    additionalProperties: false,
  },
});

/** What a failure's data may carry beside message and errors, by its field (lib/errors.ts, FailureDetails). */
const FAILURE_DETAILS: Record<keyof FailureDetails, JsonSchema> = {
  attempts_left: { type: 'integer', minimum: 0, description: 'With code 17: wrong PINs left before the PIN locks' },
  needs: {
    enum: ['strong', 'strong_fresh', 'pin_setup'],
    description:
      'With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; ' +
      'strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first',
  },
  sms_sizes: smsSizesSchema('With a refused SMS text: each code text’s size as measured, by language ("built-in": the English text)'),
  phone_change_sizes: smsSizesSchema('With a refused SMS text: each phone-change warning’s size as measured, by language'),
  warning_sizes: {
    type: 'object',
    description:
      'With a refused SMS text: each security warning’s size as measured, by warning (a held change’s kind or new_device), then by language',
    additionalProperties: smsSizesSchema('By language'),
  },
};

/**
 * The failure envelope for one status (0: any status), listing the codes it can carry, and the
 * fields its data may add (`details`; attempts_left wherever code 17 may come).
 */
export function failureEnvelope(status: number, names: ErrorName[], details: (keyof FailureDetails)[] = []): JsonSchema {
  const added = new Set(details);
  if (status === 0 || names.includes('PIN_INVALID')) added.add('attempts_left');
  if (status === 0 || names.includes('FORBIDDEN')) added.add('needs');
  return {
    type: 'object',
    properties: {
      success: { const: 0 },
      error: { type: 'array', items: { enum: names.map((name) => ErrorCodes[name].code) }, minItems: 1 },
      data: {
        type: 'object',
        properties: {
          message: status ? { const: StatusNames[status] } : { enum: [...new Set(Object.values(StatusNames))] },
          errors: { type: 'array', items: { $ref: '#/components/schemas/FieldError' } },
          ...Object.fromEntries([...added].map((field) => [field, FAILURE_DETAILS[field]])),
        },
        required: ['message'],
        additionalProperties: false,
      },
    },
    required: ['success', 'error', 'data'],
    additionalProperties: false,
  };
}

export function successEnvelope(data: JsonSchema): JsonSchema {
  return {
    type: 'object',
    properties: { success: { const: 1 }, error: { type: 'array', maxItems: 0 }, data },
    required: ['success', 'error', 'data'],
    additionalProperties: false,
  };
}

function errorNamesByStatus(endpoint: Endpoint): Map<number, ErrorName[]> {
  const byStatus = new Map<number, ErrorName[]>();
  for (const name of new Set([...chainErrors(endpoint), ...endpoint.errors])) {
    const { status } = ErrorCodes[name];
    byStatus.set(status, [...(byStatus.get(status) ?? []), name]);
  }
  return new Map([...byStatus.entries()].sort(([a], [b]) => a - b));
}

/** How the document says a value counts as absent (lib/validation.ts, ABSENT_VALUES). */
const absentSchemas: JsonSchema[] = ABSENT_VALUES.map((value) => (value === null ? { type: 'null' } : { const: value }));

/**
 * A request schema as clients may really send it: an optional field may also be one of the
 * values that count as absent, and unknown fields are ignored rather than refused.
 */
function requestSchema(schema: z.core.$ZodType): JsonSchema {
  const object = jsonSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  const properties = Object.fromEntries(
    Object.entries(object.properties ?? {}).map(([name, property]) => {
      const { description, ...rest } = property;
      if (object.required?.includes(name) || Object.keys(rest).length === 0) return [name, property];
      return [name, { ...(description ? { description } : {}), anyOf: [rest, ...absentSchemas] }];
    }),
  );
  return { ...object, properties };
}

function queryParameters(endpoint: Endpoint): JsonSchema[] {
  if (!endpoint.query) return [];
  const schema = jsonSchema(endpoint.query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: schema.required?.includes(name) ?? false,
    schema: property,
  }));
}

function retryAfterOf(status: number): string {
  return status === 409
    ? 'Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request)'
    : 'Seconds to wait';
}

const securityOf: Record<Endpoint['auth'], unknown[]> = {
  required: [{ token: [] }],
  // An empty requirement makes the token optional.
  optional: [{}, { token: [] }],
  none: [],
};

function operation(endpoint: Endpoint, config: Config): JsonSchema {
  const responses: Record<string, unknown> = {
    200: {
      description: 'Success',
      content: {
        'application/json': {
          schema: successEnvelope(jsonSchema(endpoint.result, 'output')),
          example: { success: 1, error: [], data: endpoint.examples.result },
        },
      },
    },
  };
  for (const [status, names] of errorNamesByStatus(endpoint)) {
    responses[status] = {
      description: `${StatusNames[status]}: ${names.map((name) => `${ErrorCodes[name].code} ${name}`).join(', ')}`,
      ...(status === 429 || status === 503 || (status === 409 && names.includes('IDEMPOTENCY_KEY_REUSED'))
        ? {
            headers: {
              // Every 429 and 503 carries it; a 409 only with code 20.
              'Retry-After': { description: retryAfterOf(status), required: status !== 409, schema: { type: 'integer' } },
            },
          }
        : {}),
      content: { 'application/json': { schema: failureEnvelope(status, names, status === 400 ? endpoint.failureData : []) } },
    };
  }
  const hasJsonBody = endpoint.body && endpoint.method !== 'GET';
  return {
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    description: endpoint.description(config),
    tags: [endpoint.tag],
    parameters: [
      { $ref: '#/components/parameters/CompanyID' },
      ...(endpoint.method === 'POST' ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
      ...queryParameters(endpoint),
    ],
    security: securityOf[endpoint.auth],
    ...(hasJsonBody
      ? {
          requestBody: {
            required: endpoint.bodyRequired ?? true,
            content: { 'application/json': { schema: requestSchema(endpoint.body!), example: endpoint.examples.request } },
          },
        }
      : {}),
    responses,
  };
}

function errorTable(): string {
  const rows = Object.entries(ErrorCodes).map(([name, { code, status }]) => `| ${code} | ${name} | ${status} |`);
  return ['| code | name | status |', '|---|---|---|', ...rows].join('\n');
}

const kidSchema: JsonSchema = { type: 'string', description: 'The key’s RFC 7638 thumbprint: the `kid` of the tokens it signs' };
/** A JWKS entry: an ES256 (P-256) or an RS256 (RSA 2048) public key, by the stage's ACCESS_TOKEN_ALG; both while a stage moves. */
const jwkSchema: JsonSchema = {
  oneOf: [
    {
      type: 'object',
      required: ['kty', 'crv', 'x', 'y', 'kid', 'alg', 'use'],
      properties: {
        kty: { const: 'EC' },
        crv: { const: 'P-256' },
        x: { type: 'string' },
        y: { type: 'string' },
        kid: kidSchema,
        alg: { const: 'ES256' },
        use: { const: 'sig' },
      },
    },
    {
      type: 'object',
      required: ['kty', 'n', 'e', 'kid', 'alg', 'use'],
      properties: {
        kty: { const: 'RSA' },
        n: { type: 'string', description: 'The 2048-bit modulus, base64url' },
        e: { type: 'string', description: 'The public exponent, base64url (`AQAB`: 65537)' },
        kid: kidSchema,
        alg: { const: 'RS256' },
        use: { const: 'sig' },
      },
    },
  ],
};

/** A document a verifier of access tokens reads (lib/sessions/discovery.ts): no CompanyID, no token, cacheable. */
function verifierDocument(operationId: string, summary: string, description: string, schema: JsonSchema, example: unknown): JsonSchema {
  return {
    get: {
      operationId,
      summary,
      description,
      tags: ['tokens'],
      security: [],
      responses: {
        200: {
          description: 'Success (not in the envelope: the format verifiers expect)',
          headers: { 'Cache-Control': { description: `public, max-age=${JWKS_MAX_AGE_SECONDS}`, schema: { type: 'string' } } },
          content: { 'application/json': { schema, example } },
        },
        503: {
          description: `${StatusNames[503]}: 16 SERVICE_UNAVAILABLE (the keys cannot be read)`,
          content: { 'application/json': { schema: failureEnvelope(503, ['SERVICE_UNAVAILABLE']) } },
        },
      },
    },
  };
}

/** The discovery document and the JWKS (API contract 3.12). */
function verifierPaths(config: Config): Record<string, JsonSchema> {
  const sampleKey = {
    kty: 'EC',
    crv: 'P-256',
    x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
    y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
    kid: 'Hx3oZ0yq1QmR2v5bT8wK4nC7dE6fG9hJ0kL1mP2sA3u',
    alg: 'ES256',
    use: 'sig',
  };
  return {
    [OPENID_CONFIGURATION_PATH]: verifierDocument(
      'openidConfiguration',
      'The issuer of access tokens and where its keys are',
      'The discovery document of the access tokens’ issuer (`iss`): API Gateway’s JWT authorizer and OIDC-aware JOSE ' +
        'libraries read `jwks_uri` from it. Needs no CompanyID.',
      {
        type: 'object',
        required: ['issuer', 'jwks_uri'],
        properties: {
          issuer: { type: 'string', format: 'uri' },
          jwks_uri: { type: 'string', format: 'uri' },
          response_types_supported: { type: 'array', items: { type: 'string' } },
          subject_types_supported: { type: 'array', items: { type: 'string' } },
          id_token_signing_alg_values_supported: { type: 'array', items: { type: 'string' } },
          claims_supported: { type: 'array', items: { type: 'string' } },
        },
      },
      openidConfiguration({ config: { ...config, tokenIssuer: 'https://auth.example.com' } }, [config.accessTokenAlg]),
    ),
    [JWKS_PATH]: verifierDocument(
      'jwks',
      'The public keys access tokens are signed with',
      `A JWK Set: the key that signs now, a key rotated in (listed before it signs), and an older one while a token it signed ` +
        `may still be valid (up to ${duration(config.accessTokenTtlSeconds)} after it stopped signing). Needs no CompanyID.`,
      { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: jwkSchema } } },
      { keys: [sampleKey] },
    ),
  };
}

export function openApiDocument(config: Config): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of Object.values(endpoints)) {
    paths[endpoint.path] = { ...paths[endpoint.path], [endpoint.method.toLowerCase()]: operation(endpoint, config) };
  }
  Object.assign(paths, verifierPaths(config));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Wallet auth and referral API',
      version: '3.0.0',
      description: [
        'Registration, phone OTP login and the referral program list of a multi-company digital wallet.',
        '',
        'Every call needs the `CompanyID` header (but the issuer’s discovery document and JWKS). Every answer is the envelope',
        '`{"success": 1|0, "error": [codes], "data": {...}}`; a failure carries its codes in `error`,',
        'the status name in `data.message` and, for field problems, `data.errors`. Any other route',
        `answers 404 with code 6. Bodies are JSON (\`Content-Type: application/json\`), at most ${byteSize(config.maxBodyBytes)}.`,
        '',
        'One answer does not come from the service: when the deployed API Gateway throttles a route (past the',
        "stage's configured rate, or the AWS account's),",
        'it answers `429 {"message": "Too Many Requests"}` itself, without the envelope or `Retry-After`.',
        'Treat every 429 as code 12 and back off.',
        '',
        errorTable(),
      ].join('\n'),
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'The server this document is served from' }],
    tags: Object.entries(API_TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      securitySchemes: {
        token: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            `\`Token <access token>\` (or \`Bearer <access token>\`), from registration, a login or a refresh: a JWT signed ` +
            `with ES256 or RS256 (the stage's ACCESS_TOKEN_ALG) ` +
            `valid ${duration(config.accessTokenTtlSeconds)}, over a session that lives ${duration(config.tokenTtlSeconds)} at most ` +
            '(renewed by POST /wallet/v3/auth/token/refresh).',
        },
      },
      parameters: {
        CompanyID: {
          name: 'CompanyID',
          in: 'header',
          required: true,
          description: 'The company, 32 hexadecimal characters',
          schema: { type: 'string', pattern: HEX_ID_PATTERN.source },
        },
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: [
            'Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable',
            'key sent without a token can be taken first by someone else).',
            `Within ${duration(IDEMPOTENCY_WINDOW_SECONDS)}, the same key with the same body, company and session (the token's sid) gets the first`,
            'answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write.',
            'The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`.',
            'Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body.',
            `An answer carrying a session, a refresh token or a phone proof is replayed for ${duration(CREDENTIAL_REPLAY_SECONDS)} only,`,
            'whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new',
            'request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its',
            'retry with its first outcome, not 401.',
          ].join(' '),
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
        },
      },
      schemas: {
        FieldError: fieldErrorSchema,
        // Any failure, such as the 404 (code 6) of a route that does not exist.
        FailureEnvelope: failureEnvelope(
          0,
          Object.keys(ErrorCodes) as ErrorName[],
          Object.keys(FAILURE_DETAILS) as (keyof FailureDetails)[],
        ),
      },
    },
  };
}
