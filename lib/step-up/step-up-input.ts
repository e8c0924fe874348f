import * as z from 'zod/mini';
import type { Call, Principal, RequestKey } from '../call.js';
import { assertionFields } from '../passkeys/passkey-schemas.js';
import { loginPinFields } from '../pins/login-pin-input.js';

// The step_up body (API contract 3.15, second reading): login_pin's, the device signing
// "step_up\n<company id>\n<device_key>\n<timestamp>\n<nonce>" instead.

export const stepUpBody = z.lazy(() =>
  z.union([
    z.object(loginPinFields('step_up')),
    // Or a passkey of the user (API contract 3.15, second reading): an assertion for a challenge of passkeys/login/options.
    z.object({
      passkey: z
        .object(assertionFields())
        .check(z.meta({ description: 'A passkey assertion (PublicKeyCredential.toJSON()) instead of the device and PIN' })),
    }),
  ]),
);

export type StepUpInput = z.output<typeof stepUpBody>;
export type StepUpCall = Call<StepUpInput, Record<string, never>, Principal> & RequestKey;
