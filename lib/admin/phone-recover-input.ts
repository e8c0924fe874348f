import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { hexIdField } from '../ids.js';
import { staffReason } from '../staff/staff-gate.js';
import { phoneFields, withPhoneE164 } from '../users/phone-number.js';

// The start of an assisted recovery (API contract 3.14): the user, and the number they can now
// receive codes on.

export const phoneRecoverBody = z.lazy(() =>
  withPhoneE164(z.object({ user_id: hexIdField('user id'), ...phoneFields(), reason: staffReason() })),
);

export type PhoneRecoverCall = Call<z.output<typeof phoneRecoverBody>, Record<string, never>, Principal>;
