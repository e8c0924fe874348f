import * as z from 'zod/mini';
import type { Call, RequestKey } from '../call.js';
import { deviceBindingFields } from '../devices/device-fields.js';
import { hexIdField } from '../ids.js';
import { pin } from '../pins/pin-field.js';
import { staffReason } from '../staff/staff-gate.js';
import { phoneFields, withPhoneE164 } from '../users/phone-number.js';
import { birthDateField, emailField, imageField, locationPoint, nameField, shortText } from '../users/profile-fields.js';
import { userTypeField } from '../users/user-types.js';

// The registration body (API contract 3.1): one schema validates it and gives its type.

/** A whole number from min to max. */
const whole = (min: number, max: number, message?: string) => z.int().check(z.gte(min, message), z.lte(max, message));

const registrationFields = () =>
  withPhoneE164(
    z.object({
      ...phoneFields(),
      user_type: userTypeField(),
      first_name: nameField(),
      last_name: nameField(),
      password: z
        .string()
        .check(z.refine((value: string) => [...value].length >= 8 && [...value].length <= 128, 'must be 8 to 128 characters')),
      login_pin: pin(),
      transaction_pin: pin(),
      email: z.optional(emailField()),
      account_number_prefix: z.optional(
        z.string().check(z.trim(), z.regex(/^[A-Za-z0-9-]{1,20}$/, 'must be 1 to 20 letters, digits or -')),
      ),
      // Honoured only from an employee, and then only 1 (active) or 2 (disabled): see user-register.ts.
      status_id: z.optional(whole(1, 1000)),
      birth_date: z.optional(birthDateField()),
      image: z.optional(imageField()),
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
      // Registering an employee is a staff action (contract 3.14, round 6): why, kept in its record.
      reason: z.optional(staffReason()),
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

/** An operator registering a company's first employee calls from no address: origin is absent. */
export type UserRegisterCall = Omit<Call<UserRegisterInput>, 'origin'> & { origin?: Call<UserRegisterInput>['origin'] } & RequestKey;
