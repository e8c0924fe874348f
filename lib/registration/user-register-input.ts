import * as z from 'zod/mini';
import type { Call, RequestKey } from '../call.js';
import { deviceBindingFields } from '../devices/device-fields.js';
import { AppError, ErrorCodes } from '../errors.js';
import { hexIdField } from '../ids.js';
import { phoneFields, withPhoneE164 } from '../users/phone-number.js';
import { userTypeField } from '../users/user-types.js';

// The registration body (API contract 3.1): one schema validates it and gives its type.

/** Whether a PIN is one repeated digit (1111) or a straight run (1234, 4321): refused as guessable. */
function isGuessablePin(pin: string): boolean {
  const digits = [...pin].map(Number);
  const steps = new Set(digits.slice(1).map((digit, index) => digit - digits[index]!));
  return steps.size === 1 && [0, 1, -1].includes([...steps][0]!);
}

/** A PIN as registration, change_pin and reset_pin take it (API contract 3.1), built with its schema on first use. */
export const pin = () =>
  z.string().check(
    z.regex(/^[0-9]{4,6}$/, 'must be 4 to 6 digits'),
    z.refine((value: string) => !isGuessablePin(value), 'must not be one repeated digit or a straight run'),
  );

const shortText = (max: number) => z.string().check(z.trim(), z.minLength(1), z.maxLength(max));

/** A whole number from min to max. */
const whole = (min: number, max: number, message?: string) => z.int().check(z.gte(min, message), z.lte(max, message));

const locationPoint = () =>
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

const registrationFields = () =>
  withPhoneE164(
    z.object({
      ...phoneFields(),
      user_type: userTypeField(),
      first_name: shortText(100),
      last_name: shortText(100),
      password: z
        .string()
        .check(z.refine((value: string) => [...value].length >= 8 && [...value].length <= 128, 'must be 8 to 128 characters')),
      login_pin: pin(),
      transaction_pin: pin(),
      email: z.optional(
        z.pipe(
          z.pipe(z.string().check(z.trim(), z.maxLength(254)), z.email()),
          z.transform((value: string) => value.toLowerCase()),
        ),
      ),
      account_number_prefix: z.optional(
        z.string().check(z.trim(), z.regex(/^[A-Za-z0-9-]{1,20}$/, 'must be 1 to 20 letters, digits or -')),
      ),
      // Honoured only from an employee, and then only 1 (active) or 2 (disabled): see user-register.ts.
      status_id: z.optional(whole(1, 1000)),
      birth_date: z.optional(z.int().check(z.refine((value: number) => value > EARLIEST_BIRTH_DATE_MS, BIRTH_DATE_RULE))),
      image: z.optional(z.url({ protocol: /^https?$/ }).check(z.maxLength(2048))),
      kyc_status: z.optional(z.union([z.literal(1), z.literal(2)], { error: 'must be 1 (pending) or 2 (approved)' })),
      country_id: z.optional(shortText(64)),
      kyc_process_status: z.optional(
        z.pipe(z.union([z.int(), z.pipe(z.string().check(z.regex(/^[0-9]+$/)), z.transform(Number))]), whole(1, 3, 'must be 1, 2 or 3')),
      ),
      location_point: z.optional(locationPoint()),
      ...deviceBindingFields(),
      parent_user_id: z.optional(hexIdField('user id')),
      referral_code: z.optional(
        z.pipe(
          z.string().check(z.trim(), z.regex(/^[0-9A-Za-z]{4,32}$/, 'must be letters and digits')),
          z.transform((value: string) => value.toUpperCase()),
        ),
      ),
      phone_verification_token: z.optional(
        z
          .string()
          .check(
            z.regex(/^[A-Za-z0-9_-]{16,256}$/, 'must be a verification_token from verify_otp'),
            z.meta({ description: 'The verification_token of a verified otp_type 2 code for this phone and user_type (verify_otp)' }),
          ),
      ),
      // The seed lists it; the server sets it from the caller's token instead.
      cretaed_by: z.optional(z.unknown()).check(z.meta({ description: 'Accepted and ignored: set from the token, never from the body' })),
    }),
  );

/** The seed's parameter table spells location_point as location_poin: accept both. */
function acceptLocationAlias(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return body;
  const { location_poin, ...rest } = body as Record<string, unknown>;
  return rest.location_point === undefined && location_poin !== undefined ? { ...rest, location_point: location_poin } : rest;
}

export const userRegisterBody = z.lazy(() => z.pipe(z.transform(acceptLocationAlias), registrationFields()));

export type UserRegisterInput = z.output<typeof userRegisterBody>;

/**
 * The other half of birth_date's rule: a schema cannot read the app's clock, so userRegister
 * checks "in the past" first, and answers as validation would.
 */
export function requirePastBirthDate(input: Pick<UserRegisterInput, 'birth_date'>, now: number): void {
  if (input.birth_date === undefined || input.birth_date < now) return;
  const fields = [{ code: ErrorCodes.BAD_REQUEST.code, field: 'birth_date', detail: BIRTH_DATE_RULE }];
  throw new AppError('BAD_REQUEST', { detail: 'validation failed', fields });
}

/** An operator registering a company's first employee calls from no address: origin is absent. */
export type UserRegisterCall = Omit<Call<UserRegisterInput>, 'origin'> & { origin?: Call<UserRegisterInput>['origin'] } & RequestKey;
