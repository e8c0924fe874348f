import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { hexIdField } from '../ids.js';
import { staffReason } from '../staff/staff-gate.js';

// The approval and the cancel of a pending change by the back office (API contract 3.14): the user,
// and the change named.

const changeOfUser = () => z.object({ user_id: hexIdField('user id'), change_id: hexIdField('change id'), reason: staffReason() });
export const phoneApproveBody = z.lazy(changeOfUser);
export const phoneCancelBody = z.lazy(changeOfUser);

export type PhoneApproveCall = Call<z.output<typeof phoneApproveBody>, Record<string, never>, Principal>;
export type PhoneCancelCall = Call<z.output<typeof phoneCancelBody>, Record<string, never>, Principal>;
