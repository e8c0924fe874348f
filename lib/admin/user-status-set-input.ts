import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { actionFields } from './action-target.js';

// POST /wallet/v3/admin/users/status (API contract 3.14): disable an active user, or (admin only)
// enable a disabled one. No other status is set here.

export const userStatusSetBody = z.lazy(() =>
  z.object({
    ...actionFields(),
    status: z.enum(['disabled', 'active'], { error: 'must be "disabled" or "active"' }).check(
      z.meta({
        description: 'disabled: an active user becomes status 2 and every session ends; active (admin only): a disabled user becomes 1',
      }),
    ),
  }),
);

export type UserStatusSetInput = z.output<typeof userStatusSetBody>;
export type UserStatusSetCall = Call<UserStatusSetInput, Record<string, never>, Principal>;
