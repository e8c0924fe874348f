import type { z } from 'zod';
import { AppError, ErrorCodes, type FieldError } from './errors.js';

/** Mobile clients send unused optional fields as "" or null: both count as absent. */
function withoutEmptyFields(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== '' && value !== null));
}

/** Validates input against a schema, or throws BAD_REQUEST listing every invalid field. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: Record<string, unknown>): z.output<Schema> {
  const result = schema.safeParse(withoutEmptyFields(input));
  if (result.success) return result.data;
  const fields: FieldError[] = result.error.issues.map((issue) => ({
    code: ErrorCodes.BAD_REQUEST.code,
    field: issue.path.length ? issue.path.join('.') : 'body',
    detail: issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message,
  }));
  throw new AppError('BAD_REQUEST', { detail: 'validation failed', fields });
}
