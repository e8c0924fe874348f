// npm run openapi: writes docs/openapi.json from the code's own schemas, stating the default
// limits, docs/openapi.d.ts, the document's types for a TypeScript client (openapi-typescript), and
// docs/redeem-authorization.schema.json, the payload and answer of the function with no HTTP route.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { openApiDocument } from '../lib/api/openapi-document.js';
import { redeemAuthorizationSchema } from '../lib/api/redeem-authorization-schema.js';
import { readConfig } from '../lib/config.js';

export const OPENAPI_FILE = resolve(import.meta.dirname, '../docs/openapi.json');
export const OPENAPI_TYPES_FILE = resolve(import.meta.dirname, '../docs/openapi.d.ts');
export const REDEEM_SCHEMA_FILE = resolve(import.meta.dirname, '../docs/redeem-authorization.schema.json');

/** The document as committed: generated with every setting at its default. */
export function renderOpenApi(): string {
  return `${JSON.stringify(openApiDocument(readConfig({})), null, 2)}\n`;
}

/** redeemAuthorization's JSON Schema as committed, with every setting at its default. */
export function renderRedeemSchema(): string {
  return `${JSON.stringify(redeemAuthorizationSchema(readConfig({})), null, 2)}\n`;
}

/** The types a client generates from the committed document, as openapi-fetch takes them. */
export async function renderOpenApiTypes(): Promise<string> {
  const types = astToString(await openapiTS(JSON.parse(renderOpenApi()) as OpenAPI3, { silent: true }));
  return `// Generated from docs/openapi.json by npm run openapi (openapi-typescript): do not edit.\n${types}`;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  writeFileSync(OPENAPI_FILE, renderOpenApi());
  writeFileSync(OPENAPI_TYPES_FILE, await renderOpenApiTypes());
  writeFileSync(REDEEM_SCHEMA_FILE, renderRedeemSchema());
  console.log(`wrote ${OPENAPI_FILE}, ${OPENAPI_TYPES_FILE} and ${REDEEM_SCHEMA_FILE}`);
}
