import * as z from 'zod/mini';
import { pendingChangesField } from '../pending-changes/pending-change-list.js';

// What a user sees of their own account (API contract 3.11): never a password, PIN, hash or key.

const hexId = () => z.string().check(z.regex(/^[0-9a-f]{32}$/), z.meta({ description: '32 lower-case hex characters' }));

/** The profile, built with the result that holds it, on first use. */
export const profileSchema = () =>
  z.object({
    user_id: hexId(),
    user_type: z.int().check(z.meta({ description: '1 employee, 2 customer' })),
    first_name: z.string(),
    last_name: z.string(),
    email: z.nullable(z.string()),
    dial_code: z.string(),
    phone_number: z.string(),
    phone_verified: z.int().check(z.meta({ description: '1 once the user proved the phone' })),
    birth_date: z.nullable(z.int().check(z.meta({ description: 'UNIX milliseconds' }))),
    image: z.nullable(z.string()),
    kyc_status: z.int(),
    kyc_process_status: z.int(),
    country_id: z.nullable(z.string()),
    location_point: z.nullable(z.string().check(z.meta({ description: '"latitude,longitude"' }))),
    referral_code: z.string(),
    status_id: z.int().check(z.meta({ description: '1 active (a token of any other status answers 401)' })),
    role: z.optional(
      z
        .nullable(z.enum(['support', 'admin']))
        .check(z.meta({ description: "An employee's back-office role (3.14): support, admin, or null for none; absent for a customer" })),
    ),
    created_date: z.int().check(z.meta({ description: 'UNIX seconds' })),
    updated_date: z.int().check(z.meta({ description: 'UNIX seconds' })),
  });

/** A phone change that waits (contract 3.11, amended in round 5): its id, when it may complete, and the new number's last 4 digits only. */
export const pendingPhoneChangeSchema = () =>
  z.nullable(
    z
      .object({
        change_id: hexId(),
        effective_at: z.int().check(z.meta({ description: 'UNIX seconds from which an OTP login to the new number completes it' })),
        phone_last4: z.string().check(z.meta({ description: 'the last 4 digits of the new number' })),
      })
      .check(z.meta({ description: 'the pending phone change; null when there is none (or it ended, or is void)' })),
  );

export const userProfileResult = z.lazy(() =>
  z.object({ user: profileSchema(), pending_phone_change: pendingPhoneChangeSchema(), pending_changes: pendingChangesField() }),
);
export const userProfileUpdateResult = z.lazy(() =>
  z.object({
    message: z.string(),
    user: profileSchema(),
    pending: z.optional(
      z.literal(1).check(
        z.meta({
          description:
            'Present when a change of the names, birth date or email waits (an SMS-strength session, contract 3.15): `user` shows what changed at once (image, location), not what waits',
        }),
      ),
    ),
    change_id: z.optional(
      z.string().check(z.meta({ description: 'The pending profile change: POST /wallet/v3/user/changes/cancel takes it' })),
    ),
    effective_at: z.optional(
      z.int().check(z.meta({ description: 'UNIX seconds from which it lands (at the next profile read) unless cancelled' })),
    ),
  }),
);

export type Profile = z.output<ReturnType<typeof profileSchema>>;
export type PendingPhoneChangeShown = z.output<ReturnType<typeof pendingPhoneChangeSchema>>;
export type UserProfileResult = z.output<typeof userProfileResult>;
export type UserProfileUpdateResult = z.output<typeof userProfileUpdateResult>;
