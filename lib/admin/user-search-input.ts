import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { hexIdField } from '../ids.js';
import { staffReason } from '../staff/staff-gate.js';
import { emailField } from '../users/profile-fields.js';
import { UserType, userTypeField } from '../users/user-types.js';

// POST /wallet/v3/admin/users/search (API contract 3.14): exactly one exact key, never a listing or
// a prefix, so a staff account cannot be turned into a scraper.

const KEYS = ['phone', 'email', 'user_id', 'referral_code'] as const;

export const userSearchBody = z.lazy(() =>
  z
    .object({
      phone: z.optional(
        z
          .string()
          .check(
            z.trim(),
            z.regex(/^\+[1-9]\d{6,14}$/, 'must be a phone number in E.164, such as +12025550143'),
            z.meta({ description: 'A phone number in E.164' }),
          ),
      ),
      email: z.optional(emailField()),
      user_id: z.optional(hexIdField('user id')),
      referral_code: z.optional(
        z.pipe(
          z.string().check(z.trim(), z.regex(/^[0-9A-Za-z]{4,32}$/, 'must be letters and digits')),
          z.transform((value: string) => value.toUpperCase()),
        ),
      ),
      user_type: z._default(userTypeField(), UserType.CUSTOMER),
      reason: staffReason(),
    })
    .check(
      z.superRefine((body, context) => {
        const given = KEYS.filter((key) => body[key] !== undefined);
        if (given.length === 1) return;
        const detail = given.length ? `send one of ${KEYS.join(', ')}, not ${given.join(' and ')}` : `send one of ${KEYS.join(', ')}`;
        for (const key of given.length ? given.slice(1) : ['phone' as const])
          context.addIssue({ code: 'custom', path: [key], message: detail });
      }),
    ),
);

export type UserSearchInput = z.output<typeof userSearchBody>;
export type UserSearchCall = Call<UserSearchInput, Record<string, never>, Principal>;
