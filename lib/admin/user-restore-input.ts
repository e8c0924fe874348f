import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { actionFields } from './action-target.js';

// POST /wallet/v3/admin/users/restore (API contract 3.14): undoes a deletion before its erasure.

export const userRestoreBody = z.lazy(() => z.object(actionFields()));

export type UserRestoreInput = z.output<typeof userRestoreBody>;
export type UserRestoreCall = Call<UserRestoreInput, Record<string, never>, Principal>;
