// npm run openapi: writes docs/openapi.json from the code's own schemas, stating the default limits.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { openApiDocument } from '../lib/api/openapi-document.js';
import { readConfig } from '../lib/config.js';

export const OPENAPI_FILE = resolve(import.meta.dirname, '../docs/openapi.json');

/** The document as committed: generated with every setting at its default. */
export function renderOpenApi(): string {
  return `${JSON.stringify(openApiDocument(readConfig({})), null, 2)}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  writeFileSync(OPENAPI_FILE, renderOpenApi());
  console.log(`wrote ${OPENAPI_FILE}`);
}
