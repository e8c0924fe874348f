import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { birthDateField, emailField, imageField, locationPoint, nameField } from '../users/profile-fields.js';

// The profile/update body (API contract 3.11): the fields a user may change, with registration's
// rules, and the ones they may not, refused by name (a phone moves by phone/change, the rest is
// the operator's or the service's).

/** Fields the user may not change here: a body naming one is refused with that field. */
export const FIXED_FIELDS = [
  'phone_number',
  'dial_code',
  'user_type',
  'status_id',
  'kyc_status',
  'kyc_process_status',
  'referral_code',
  'country_id',
] as const;

const fixed = (field: string) =>
  z.optional(
    z.never({
      error:
        field === 'phone_number' || field === 'dial_code'
          ? 'cannot be changed here: use /wallet/v3/user/phone/change'
          : 'cannot be changed by the user',
    }),
  );

export const userProfileUpdateBody = z.lazy(() =>
  z.object({
    first_name: z.optional(nameField()),
    last_name: z.optional(nameField()),
    email: z.optional(emailField()),
    image: z.optional(imageField()),
    birth_date: z.optional(birthDateField()),
    location_point: z.optional(locationPoint()),
    ...Object.fromEntries(FIXED_FIELDS.map((field) => [field, fixed(field)])),
  }),
);

export type UserProfileUpdateInput = Pick<
  z.output<typeof userProfileUpdateBody>,
  'first_name' | 'last_name' | 'email' | 'image' | 'birth_date' | 'location_point'
>;
export type UserProfileUpdateCall = Call<UserProfileUpdateInput, Record<string, never>, Principal>;
export type UserProfileCall = Call<Record<string, never>, Record<string, never>, Principal>;
