import * as z from 'zod/mini';
import type { Call } from '../call.js';
import { withPhoneE164 } from '../users/phone-number.js';
import { codeTargetFields } from './code-target.js';

// The login_phone body (API contract 3.2): where to send a code, and for what.

export const loginPhoneBody = z.lazy(() => withPhoneE164(z.object(codeTargetFields())));

export type LoginPhoneInput = z.output<typeof loginPhoneBody>;
export type LoginPhoneCall = Call<LoginPhoneInput>;
