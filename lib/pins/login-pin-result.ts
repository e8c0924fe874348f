import * as z from 'zod/mini';
import { probationDeviceItem } from '../devices/devices-result.js';
import { pendingChangesField } from '../pending-changes/pending-change-list.js';
import { sessionResult } from '../sessions/session-result.js';

/** A PIN login answers a session, what waits, and which devices are on probation (API contract 3.15, second reading). */
export const loginPinResult = z.lazy(() =>
  z.extend(sessionResult(), {
    pending_changes: pendingChangesField(),
    probation_devices: z.array(probationDeviceItem).check(
      z.meta({
        description:
          'Devices bound by an OTP login and still on probation: their PIN logins are SMS-strength. From a strong session, approve one ' +
          '(POST /wallet/v3/auth/devices/approve) or remove it; "Not me" (not_me) removes them all',
      }),
    ),
  }),
);

export type LoginPinResult = z.output<typeof loginPinResult>;
