// Request schemas are written with zod/mini: zod's checks without its chained API, which a
// bundler cannot trim; that keeps about 20 ms off every cold start (docs/performance.md).
import * as z from 'zod/mini';
import { AppError, ErrorCodes, type FieldError } from './errors.js';

/** Mobile clients send unused optional fields as "" or null: both count as absent (the API document says so). */
export const ABSENT_VALUES: readonly unknown[] = ['', null];

function withoutEmptyFields(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => !ABSENT_VALUES.includes(value)));
}

/**
 * A whole number from a query string, min to max. The query carries it as digits, so those are
 * read as the number; anything else is refused. Its JSON Schema (zod documents a pipe from a
 * transform by what follows it) is an integer with its bounds, so a generated client sends a number.
 */
export function queryInteger(min: number, max: number) {
  const message = `must be a whole number from ${min} to ${max}`;
  return z.pipe(
    z.transform((value: unknown) => (typeof value === 'string' && /^[0-9]{1,16}$/.test(value) ? Number(value) : value)),
    z.int({ error: message }).check(z.gte(min, message), z.lte(max, message)),
  );
}

/** Validates input against a schema, or rejects with BAD_REQUEST listing every invalid field. */
export async function parseInput<Schema extends z.core.$ZodType>(
  schema: Schema,
  input: Record<string, unknown>,
): Promise<z.output<Schema>> {
  const present = withoutEmptyFields(input);
  // Asynchronous: a phone check loads the numbering plan on first use (lib/users/phone-number.ts).
  const result = await z.safeParseAsync(schema, present);
  if (result.success) return result.data;
  // zod does not report the input it refused, so absence is read from the input itself: a value of
  // the wrong type is not "required".
  const absent = (path: PropertyKey[]) =>
    path.reduce<unknown>((value, key) => (value as Record<PropertyKey, unknown> | undefined)?.[key], present) === undefined;
  const fields: FieldError[] = result.error.issues.map((issue) => ({
    code: ErrorCodes.BAD_REQUEST.code,
    field: issue.path.length ? issue.path.join('.') : 'body',
    detail: issue.code === 'invalid_type' && absent(issue.path) ? 'is required' : issue.message,
  }));
  throw new AppError('BAD_REQUEST', { detail: 'validation failed', fields });
}
