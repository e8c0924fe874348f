import * as z from 'zod/mini';
import type { Call, RequestKey } from '../call.js';
import { deviceKeyField } from '../devices/device-fields.js';

// The login_pin body (API contract 3.6): which device, the PIN, and the device's signature over
// "login_pin\n<company id>\n<device_key>\n<timestamp>\n<nonce>".

/** The fields a device signs with and the PIN, for login_pin and step_up (each signs its own purpose). */
export const loginPinFields = (purpose: 'login_pin' | 'step_up') => ({
  device_key: deviceKeyField(),
  // Only its shape here: a stored PIN was checked against the rules of 3.1 when it was set.
  login_pin: z.string().check(z.regex(/^[0-9]{4,6}$/, 'must be 4 to 6 digits')),
  timestamp: z.int().check(z.gte(0), z.meta({ description: 'UNIX seconds, signed; within 300 s of the server clock' })),
  nonce: z
    .string()
    .check(z.regex(/^[A-Za-z0-9_-]{16,64}$/, 'must be 16 to 64 of A-Z a-z 0-9 _ -'), z.meta({ description: 'Used once per device' })),
  signature: z.string().check(
    z.regex(/^[A-Za-z0-9+/_-]{40,200}={0,2}$/, 'must be a base64 ECDSA signature'),
    z.meta({
      description: `ECDSA P-256 / SHA-256 by the device key, base64 (DER or raw r||s), over the UTF-8 text "${purpose}\\n<company id, lowercase>\\n<device_key>\\n<timestamp>\\n<nonce>"`,
    }),
  ),
});

export const loginPinBody = z.lazy(() =>
  z.object({
    ...loginPinFields('login_pin'),
    not_me: z.optional(
      z.literal(1, 'must be 1').check(
        z.meta({
          description:
            '1: "Not me" in the same transaction as the session, on a settled device (contract 3.15): every pending change cancelled, every device on probation removed, every other session ended',
        }),
      ),
    ),
  }),
);

export type LoginPinInput = z.output<typeof loginPinBody>;
export type LoginPinCall = Call<LoginPinInput> & RequestKey;
