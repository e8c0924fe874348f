import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { endpoints } from '../../lib/api/endpoints.js';
import { openApiDocument } from '../../lib/api/openapi-document.js';
import { readConfig } from '../../lib/config.js';
import { OPENAPI_FILE, renderOpenApi } from '../../scripts/openapi.js';

const document = openApiDocument(readConfig({})) as any;

describe('docs/openapi.json', () => {
  it('is what the code generates (run `npm run openapi` after changing a schema)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(renderOpenApi());
  });

  it('describes every operation with the CompanyID header, its token rule, its body and answers', () => {
    expect(document.openapi).toBe('3.1.0');
    for (const endpoint of endpoints) {
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
    expect(register['409'].content['application/json'].schema.properties.error.items.enum).toEqual([7]);
    expect(register['400'].content['application/json'].schema.properties.error.items.enum.sort((a: number, b: number) => a - b)).toEqual([
      1, 2, 8, 14,
    ]);
    const send = document.paths['/wallet/v3/auth/login_phone'].post.responses;
    expect(send['429'].headers['Retry-After']).toBeDefined();
  });

  it('states the limits the configuration sets, not fixed numbers', () => {
    const settings = readConfig({
      OTP_TTL_SECONDS: '120',
      OTP_SENDS_PER_PHONE_PER_HOUR: '3',
      TOKEN_TTL_SECONDS: '86400',
      MAX_BODY_BYTES: '8192',
    });
    const configured = openApiDocument(settings) as any;
    expect(configured.paths['/wallet/v3/auth/login_phone'].post.description).toContain('valid 2 minutes');
    expect(configured.paths['/wallet/v3/auth/login_phone'].post.description).toContain('3 per hour');
    expect(configured.components.securitySchemes.token.description).toContain('Valid 1 day');
    expect(configured.info.description).toContain('at most 8 KiB');
    expect(document.paths['/wallet/v3/auth/login_phone'].post.description).toContain('valid 5 minutes');
    expect(document.components.securitySchemes.token.description).toContain('Valid 30 days');
  });

  it('documents the optional-field leniency: "" and null are accepted where a field is optional', () => {
    const body = document.paths['/wallet/v3/auth/user_register'].post.requestBody.content['application/json'].schema;
    expect(body.required).toContain('phone_number');
    expect(body.properties.email.anyOf).toEqual(expect.arrayContaining([{ const: '' }, { type: 'null' }]));
  });
});
