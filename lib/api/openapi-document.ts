import { z } from 'zod';
import type { Config } from '../config.js';
import { ErrorCodes, type ErrorName, StatusNames } from '../errors.js';
import { HEX_ID_PATTERN } from '../ids.js';
import { byteSize, duration, type Endpoint } from './endpoint.js';
import { endpoints } from './endpoints.js';

// The OpenAPI 3.1 description of the API, generated from the same zod schemas that validate
// requests (zod's own JSON Schema output: OpenAPI 3.1 schemas are JSON Schema 2020-12), so
// the document cannot drift from the code. Limits are stated as the configuration sets them
// (the defaults, for docs/openapi.json). `npm run openapi` writes it to docs/openapi.json.

type JsonSchema = Record<string, unknown>;

/** Refusals every operation can give: from the middleware chain, before the handler runs. */
const COMMON_ERRORS: ErrorName[] = [
  'BAD_REQUEST',
  'COMPANY_ID_INVALID',
  'COMPANY_NOT_FOUND',
  'PAYLOAD_TOO_LARGE',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
];

function jsonSchema(schema: z.core.$ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' });
  return rest;
}

const fieldErrorSchema: JsonSchema = {
  type: 'object',
  properties: {
    code: { type: 'integer' },
    field: { type: 'string', description: 'The request field (or header) at fault' },
    detail: { type: 'string', description: 'What is wrong, for a developer' },
  },
  required: ['code', 'field', 'detail'],
  additionalProperties: false,
};

/** The failure envelope for one status (0: any status), listing the codes it can carry. */
function failureEnvelope(status: number, names: ErrorName[]): JsonSchema {
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
        },
        required: ['message'],
        additionalProperties: false,
      },
    },
    required: ['success', 'error', 'data'],
    additionalProperties: false,
  };
}

function successEnvelope(data: JsonSchema): JsonSchema {
  return {
    type: 'object',
    properties: { success: { const: 1 }, error: { type: 'array', maxItems: 0 }, data },
    required: ['success', 'error', 'data'],
    additionalProperties: false,
  };
}

function errorNamesByStatus(endpoint: Endpoint): Map<number, ErrorName[]> {
  const byStatus = new Map<number, ErrorName[]>();
  // A token that is sent must be valid, so any endpoint that reads one can answer 401.
  const tokenErrors: ErrorName[] = endpoint.auth === 'none' ? [] : ['UNAUTHORIZED'];
  for (const name of new Set([...COMMON_ERRORS, ...tokenErrors, ...endpoint.errors])) {
    const { status } = ErrorCodes[name];
    byStatus.set(status, [...(byStatus.get(status) ?? []), name]);
  }
  return new Map([...byStatus.entries()].sort(([a], [b]) => a - b));
}

/**
 * A request schema as clients may really send it: optional fields may also be "" or null
 * (both count as absent), and unknown fields are ignored rather than refused.
 */
function requestSchema(schema: z.core.$ZodType): JsonSchema {
  const object = jsonSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  const properties = Object.fromEntries(
    Object.entries(object.properties ?? {}).map(([name, property]) => {
      const { description, ...rest } = property;
      if (object.required?.includes(name) || Object.keys(rest).length === 0) return [name, property];
      return [name, { ...(description ? { description } : {}), anyOf: [rest, { const: '' }, { type: 'null' }] }];
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
      ...(status === 429 || status === 503
        ? { headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } } }
        : {}),
      content: { 'application/json': { schema: failureEnvelope(status, names) } },
    };
  }
  const hasJsonBody = endpoint.body && endpoint.method !== 'GET';
  return {
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    description: endpoint.description(config),
    tags: [endpoint.path.includes('/auth/') ? 'auth' : 'referrals'],
    parameters: [{ $ref: '#/components/parameters/CompanyID' }, ...queryParameters(endpoint)],
    security: securityOf[endpoint.auth],
    ...(hasJsonBody
      ? {
          requestBody: {
            required: true,
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

export function openApiDocument(config: Config): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of endpoints) {
    paths[endpoint.path] = { ...paths[endpoint.path], [endpoint.method.toLowerCase()]: operation(endpoint, config) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Wallet auth and referral API',
      version: '3.0.0',
      description: [
        'Registration, phone OTP login and the referral program list of a multi-company digital wallet.',
        '',
        'Every call needs the `CompanyID` header. Every answer is the envelope',
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
    tags: [
      { name: 'auth', description: 'Registration and phone login' },
      { name: 'referrals', description: 'The referral program' },
    ],
    paths,
    components: {
      securitySchemes: {
        token: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: `\`Token <access token>\`, from registration or a verified login code. Valid ${duration(config.tokenTtlSeconds)}.`,
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
      },
      schemas: {
        FieldError: fieldErrorSchema,
        // Any failure, such as the 404 (code 6) of a route that does not exist.
        FailureEnvelope: failureEnvelope(0, Object.keys(ErrorCodes) as ErrorName[]),
      },
    },
  };
}
