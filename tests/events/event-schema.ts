import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// The JSON Schemas of the events' `detail` as docs/events.md publishes them to subscribers: every
// ```json block of the page that names a `$schema` is one, its `title` the detail-type. The tests
// check what the publisher puts on the bus against these, so the page cannot drift from the code.

export const EVENTS_PAGE = resolve(import.meta.dirname, '../../docs/events.md');

/** The ```json blocks of a Markdown text, parsed, in order. */
export function jsonBlocks(markdown: string): unknown[] {
  return [...markdown.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map(([, text]) => JSON.parse(text!) as unknown);
}

/** The page's schemas: those blocks that name a `$schema`. */
export function detailSchemas(markdown = readFileSync(EVENTS_PAGE, 'utf8')): Array<Record<string, unknown>> {
  return jsonBlocks(markdown).filter(
    (block): block is Record<string, unknown> => typeof block === 'object' && block !== null && '$schema' in block,
  );
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** A validator per detail-type, compiled (strictly: an unknown keyword is an error of the page). */
export function detailValidators(markdown?: string): Map<string, ValidateFunction> {
  const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
  return new Map(detailSchemas(markdown).map((schema) => [String(schema.title), ajv.compile(schema)]));
}

let validators: Map<string, ValidateFunction> | undefined;

/** Why an event as delivered ({ 'detail-type', detail }) does not match its schema in docs/events.md; empty when it does. */
export function eventSchemaProblems(event: { 'detail-type': string; detail: unknown }): string[] {
  validators ??= detailValidators();
  const validate = validators.get(event['detail-type']);
  if (!validate) return [`docs/events.md has no schema titled ${event['detail-type']}`];
  if (validate(event.detail)) return [];
  return (validate.errors ?? []).map(
    (error) => `${event['detail-type']}${error.instancePath || ' detail'} ${error.message} ${JSON.stringify(error.params)}`,
  );
}
