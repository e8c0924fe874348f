import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';

// Live conformance: every answer the end-to-end tests receive must be one the published
// document (docs/openapi.json) describes for that operation and status, field for field.

const DOCUMENT_ID = 'openapi.json';
const document = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../docs/openapi.json'), 'utf8'));
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
ajv.addSchema(document, DOCUMENT_ID);

const pointer = (...segments: string[]) => segments.map((segment) => segment.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

interface LiveAnswer {
  method: string;
  /** The request path, with or without its query string. */
  path: string;
  status: number;
  headers: Headers;
  body: unknown;
}

export function expectDocumented(answer: LiveAnswer): void {
  const path = answer.path.split('?')[0]!;
  const method = answer.method.toLowerCase();
  const operation = document.paths[path]?.[method];
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  let ref: string;
  if (!operation) {
    // Not an operation: only the catch-all's 404, code 6, may answer.
    expect(answer.status, `${answer.method} ${path} is not documented`).toBe(404);
    expect(answer.body).toMatchObject({ error: [6] });
    ref = `${DOCUMENT_ID}#/components/schemas/FailureEnvelope`;
  } else {
    const response = operation.responses[String(answer.status)];
    expect(response, `status ${answer.status} of ${answer.method} ${path} is not documented`).toBeDefined();
    for (const [header, { required }] of Object.entries(response.headers ?? {}) as [string, { required?: boolean }][]) {
      if (required) expect(answer.headers.get(header), `header ${header}`).not.toBeNull();
    }
    ref = `${DOCUMENT_ID}#/${pointer('paths', path, method, 'responses', String(answer.status), 'content', 'application/json', 'schema')}`;
  }
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  const valid = validate(answer.body);
  expect(valid, `${answer.method} ${path} ${answer.status}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(answer.body)}`).toBe(true);
}
