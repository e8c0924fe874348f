import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { hexIdField } from '../ids.js';
import { phoneFields, withPhoneE164 } from '../users/phone-number.js';
import { staffReason } from './staff-gate.js';

// The assisted recovery's bodies (API contract 3.14): support starts it with the number the user
// can now receive codes on; another employee, an admin, approves it; either may cancel it.

export const phoneRecoverBody = z.lazy(() =>
  withPhoneE164(z.object({ user_id: hexIdField('user id'), ...phoneFields(), reason: staffReason() })),
);

const changeOfUser = () => z.object({ user_id: hexIdField('user id'), change_id: hexIdField('change id'), reason: staffReason() });
export const phoneApproveBody = z.lazy(changeOfUser);
export const phoneCancelBody = z.lazy(changeOfUser);

export type PhoneRecoverCall = Call<z.output<typeof phoneRecoverBody>, Record<string, never>, Principal>;
export type PhoneApproveCall = Call<z.output<typeof phoneApproveBody>, Record<string, never>, Principal>;
export type PhoneCancelCall = Call<z.output<typeof phoneCancelBody>, Record<string, never>, Principal>;
