import * as z from 'zod/mini';
import { AppError, ErrorCodes } from '../errors.js';

// The rules of a person's fields, as registration takes them (API contract 3.1) and as the user
// changes them later (3.11, lib/account/profile-update-input.ts): one place for each. No phone
// here: a module that takes none does not load the numbering plan.

/** Text of 1 to `max` characters, trimmed. */
export const shortText = (max: number) => z.string().check(z.trim(), z.minLength(1), z.maxLength(max));

/** A first or last name. */
export const nameField = () => shortText(100);

/** An email, kept lower-case: its claim is unique per company and user type. */
export const emailField = () =>
  z.pipe(
    z.pipe(z.string().check(z.trim(), z.maxLength(254)), z.email()),
    z.transform((value: string) => value.toLowerCase()),
  );

/** A picture's URL. */
export const imageField = () => z.url({ protocol: /^https?$/ }).check(z.maxLength(2048));

export const locationPoint = () =>
  z.pipe(
    z.string().check(z.trim(), z.regex(/^-?\d{1,3}(\.\d+)?\s*,\s*-?\d{1,3}(\.\d+)?$/, 'must be "latitude,longitude"')),
    z.transform((value: string, context) => {
      const [lat, lng] = value.split(',').map((part) => Number(part.trim())) as [number, number];
      if (lat < -90 || lat > 90 || lng < -180 || lng > 180) {
        context.issues.push({ code: 'custom', message: 'latitude must be -90..90 and longitude -180..180', input: value, path: [] });
        return z.NEVER;
      }
      return { lat, lng };
    }),
  );

/** 1900-01-01 in UNIX milliseconds: an earlier birth date is a unit mistake, not a person. */
const EARLIEST_BIRTH_DATE_MS = -2_208_988_800_000;
const BIRTH_DATE_RULE = 'must be UNIX milliseconds in the past';

/** A birth date, UNIX milliseconds; "in the past" is checked against the app's clock (requirePastBirthDate). */
export const birthDateField = () => z.int().check(z.refine((value: number) => value > EARLIEST_BIRTH_DATE_MS, BIRTH_DATE_RULE));

/**
 * The other half of birth_date's rule: a schema cannot read the app's clock, so userRegister
 * checks "in the past" first, and answers as validation would.
 */
export function requirePastBirthDate(input: { birth_date?: number | undefined }, now: number): void {
  if (input.birth_date === undefined || input.birth_date < now) return;
  const fields = [{ code: ErrorCodes.BAD_REQUEST.code, field: 'birth_date', detail: BIRTH_DATE_RULE }];
  throw new AppError('BAD_REQUEST', { detail: 'validation failed', fields });
}
