// Request schemas are written with zod/mini: zod's checks without its chained API, which a
// bundler cannot trim; that keeps about 20 ms off every cold start (docs/performance.md).
import * as z from 'zod/mini';
import { AppError, ErrorCodes, type FieldError } from './errors.js';

/** Mobile clients send unused optional fields as "" or null: both count as absent. */
function withoutEmptyFields(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== '' && value !== null));
}

/** Validates input against a schema, or throws BAD_REQUEST listing every invalid field. */
export function parseInput<Schema extends z.core.$ZodType>(schema: Schema, input: Record<string, unknown>): z.output<Schema> {
  const result = z.safeParse(schema, withoutEmptyFields(input));
  if (result.success) return result.data;
  const fields: FieldError[] = result.error.issues.map((issue) => ({
    code: ErrorCodes.BAD_REQUEST.code,
    field: issue.path.length ? issue.path.join('.') : 'body',
    detail: issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message,
  }));
  throw new AppError('BAD_REQUEST', { detail: 'validation failed', fields });
}
