// npm run openapi: writes docs/openapi.json from the code's own schemas, stating the default
// limits; for the client library (client/), the document's types (openapi-typescript) and the
// API's facts it runs on (each operation's route, each error code's name); and
// docs/redeem-authorization.schema.json, the payload and answer of the function with no HTTP route.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { endpoints } from '../lib/api/endpoints.js';
import { openApiDocument } from '../lib/api/openapi-document.js';
import { redeemAuthorizationSchema } from '../lib/api/redeem-authorization-schema.js';
import { readConfig } from '../lib/config.js';
import { ErrorCodes } from '../lib/errors.js';

export const OPENAPI_FILE = resolve(import.meta.dirname, '../docs/openapi.json');
export const OPENAPI_TYPES_FILE = resolve(import.meta.dirname, '../client/src/generated/openapi.d.ts');
export const API_FACTS_FILE = resolve(import.meta.dirname, '../client/src/generated/api-facts.ts');
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

/** The client library's runtime facts of the API: each operation's method, path and token rule, and each error code's name (lib/errors.ts). */
export function renderApiFacts(): string {
  const routes = Object.fromEntries(
    Object.values(endpoints).map((endpoint) => [endpoint.operationId, [endpoint.method, endpoint.path, endpoint.auth]]),
  );
  const names = Object.fromEntries(Object.entries(ErrorCodes).map(([name, { code }]) => [code, name]));
  return [
    "// Generated from the service's route table and error table by npm run openapi: do not edit.",
    `export const OPERATION_ROUTES = ${JSON.stringify(routes, null, 2)} as const;`,
    '',
    `export const ERROR_NAMES: Record<number, string> = ${JSON.stringify(names, null, 2)};`,
    '',
  ].join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  writeFileSync(OPENAPI_FILE, renderOpenApi());
  writeFileSync(OPENAPI_TYPES_FILE, await renderOpenApiTypes());
  writeFileSync(API_FACTS_FILE, renderApiFacts());
  writeFileSync(REDEEM_SCHEMA_FILE, renderRedeemSchema());
  console.log(`wrote ${OPENAPI_FILE}, ${OPENAPI_TYPES_FILE}, ${API_FACTS_FILE} and ${REDEEM_SCHEMA_FILE}`);
}
