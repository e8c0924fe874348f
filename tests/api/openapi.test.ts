import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { endpoints } from '../../lib/api/endpoints.js';
import { openApiDocument } from '../../lib/api/openapi-document.js';
import { readConfig } from '../../lib/config.js';
import type { Endpoint } from '../../lib/http/endpoint.js';
import { referralProgramQuery } from '../../lib/referrals/referral-program-input.js';
import { parseInput } from '../../lib/validation.js';
import {
  API_FACTS_FILE,
  OPENAPI_FILE,
  OPENAPI_TYPES_FILE,
  renderApiFacts,
  renderOpenApi,
  renderOpenApiTypes,
} from '../../scripts/openapi.js';

const document = openApiDocument(readConfig({})) as any;

describe('docs/openapi.json', () => {
  it('is what the code generates (run `npm run openapi` after changing a schema)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(renderOpenApi());
  });

  it('has its client types in client/src/generated/openapi.d.ts, as openapi-typescript generates them (`npm run openapi`)', async () => {
    expect(readFileSync(OPENAPI_TYPES_FILE, 'utf8')).toBe(await renderOpenApiTypes());
  });

  it("gives the client library each operation's route and each error code's name, as the service has them (`npm run openapi`)", () => {
    expect(readFileSync(API_FACTS_FILE, 'utf8')).toBe(renderApiFacts());
  });

  it('describes every operation with the CompanyID header, its token rule, its body and answers', () => {
    expect(document.openapi).toBe('3.1.0');
    for (const endpoint of Object.values(endpoints)) {
      const operation = document.paths[endpoint.path][endpoint.method.toLowerCase()];
      expect(operation.operationId).toBe(endpoint.operationId);
      expect(operation.parameters[0]).toEqual({ $ref: '#/components/parameters/CompanyID' });
      const tokenRequired = operation.security.length === 1 && 'token' in operation.security[0];
      expect(tokenRequired).toBe(endpoint.auth === 'required');
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '413', '500', '503', '401']));
      expect(operation.responses['503'].headers['Retry-After']).toBeDefined();
      expect(operation.responses['200'].content['application/json'].example.data).toEqual(endpoint.examples.result);
    }
    expect(document.components.securitySchemes.token).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
  });

  it('lists the codes each failure status carries, from the one error table', () => {
    const register = document.paths['/wallet/v3/auth/user_register'].post.responses;
    expect(register['409'].content['application/json'].schema.properties.error.items.enum.sort((a: number, b: number) => a - b)).toEqual([
      7, 20,
    ]);
    expect(register['400'].content['application/json'].schema.properties.error.items.enum.sort((a: number, b: number) => a - b)).toEqual([
      1, 2, 8, 14,
    ]);
    const send = document.paths['/wallet/v3/auth/login_phone'].post.responses;
    expect(send['429'].headers['Retry-After']).toBeDefined();
  });

  it('gives every POST the Idempotency-Key header and its 409 code 20 with Retry-After, and no GET', () => {
    for (const endpoint of Object.values(endpoints)) {
      const operation = document.paths[endpoint.path][endpoint.method.toLowerCase()];
      const takesKey = operation.parameters.some(
        (parameter: { $ref?: string }) => parameter.$ref === '#/components/parameters/IdempotencyKey',
      );
      expect(takesKey, endpoint.operationId).toBe(endpoint.method === 'POST');
      const conflict = operation.responses['409'];
      if (endpoint.method !== 'POST') continue;
      expect(conflict.content['application/json'].schema.properties.error.items.enum).toContain(20);
      expect(conflict.headers['Retry-After']).toBeDefined();
    }
    expect(document.components.parameters.IdempotencyKey).toMatchObject({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { minLength: 1, maxLength: 255 },
    });
  });

  it('states the limits the configuration sets, not fixed numbers', () => {
    const settings = readConfig({
      OTP_TTL_SECONDS: '120',
      OTP_SENDS_PER_PHONE_PER_HOUR: '3',
      TOKEN_TTL_SECONDS: '86400',
      ACCESS_TOKEN_TTL_SECONDS: '600',
      MAX_BODY_BYTES: '8192',
    });
    const configured = openApiDocument(settings) as any;
    expect(configured.paths['/wallet/v3/auth/login_phone'].post.description).toContain('valid 2 minutes');
    expect(configured.paths['/wallet/v3/auth/login_phone'].post.description).toContain('3 per hour');
    expect(configured.components.securitySchemes.token.description).toContain('valid 10 minutes, over a session that lives 1 day');
    expect(configured.info.description).toContain('at most 8 KiB');
    expect(document.paths['/wallet/v3/auth/login_phone'].post.description).toContain('valid 5 minutes');
    expect(document.components.securitySchemes.token.description).toContain('valid 15 minutes, over a session that lives 30 days');
  });

  it('documents the optional-field leniency: "" and null are accepted where a field is optional', () => {
    const body = document.paths['/wallet/v3/auth/user_register'].post.requestBody.content['application/json'].schema;
    expect(body.required).toContain('phone_number');
    expect(body.properties.email.anyOf).toEqual(expect.arrayContaining([{ const: '' }, { type: 'null' }]));
  });

  it('describes limit as an integer from 1 to 100 (contract 3.4), while the query string still carries it as digits', async () => {
    const parameters = document.paths['/wallet/v3/reward_promotion/referral_program'].get.parameters;
    expect(parameters.find((parameter: { name: string }) => parameter.name === 'limit')).toEqual({
      name: 'limit',
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    });
    expect((await parseInput(referralProgramQuery, { limit: '7' })).limit).toBe(7);
    expect((await parseInput(referralProgramQuery, {})).limit).toBe(20);
  });

  it("marks a body required exactly where the schema refuses none: logout's is optional (contract 3.5)", async () => {
    for (const endpoint of Object.values<Endpoint>(endpoints).filter((endpoint) => endpoint.body && endpoint.method !== 'GET')) {
      const { requestBody } = document.paths[endpoint.path][endpoint.method.toLowerCase()];
      expect(requestBody.required, endpoint.operationId).toBe(!(await z.safeParseAsync(endpoint.body!, {})).success);
    }
    expect(document.paths['/wallet/v3/auth/logout'].post.requestBody.required).toBe(false);
  });
});
