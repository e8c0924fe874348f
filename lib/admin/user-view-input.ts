import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { hexIdField } from '../ids.js';
import { staffReason } from '../staff/staff-gate.js';

// POST /wallet/v3/admin/users/view (API contract 3.14): one user of the company by id, the phone
// and email masked unless an admin asks to see them whole.

export const userViewBody = z.lazy(() =>
  z.object({
    user_id: hexIdField('user id'),
    reveal: z._default(
      z
        .union([z.literal(0), z.literal(1)], { error: 'must be 0 or 1' })
        .check(z.meta({ description: '1: the whole phone number and email (admin only; a support employee: 403 code 5)' })),
      0,
    ),
    reason: staffReason(),
  }),
);

export type UserViewInput = z.output<typeof userViewBody>;
export type UserViewCall = Call<UserViewInput, Record<string, never>, Principal>;
