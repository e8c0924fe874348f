import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { deviceKeyField } from '../devices/device-fields.js';
import { actionFields } from './action-target.js';

// POST /wallet/v3/admin/users/devices/remove (API contract 3.14): one of the user's devices, as the
// user's own devices/remove (3.6).

export const userDeviceRemoveBody = z.lazy(() => z.object({ ...actionFields(), device_key: deviceKeyField() }));

export type UserDeviceRemoveInput = z.output<typeof userDeviceRemoveBody>;
export type UserDeviceRemoveCall = Call<UserDeviceRemoveInput, Record<string, never>, Principal>;
