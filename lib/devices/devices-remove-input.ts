import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { deviceKeyField } from './device-fields.js';

// The devices/remove body (API contract 3.6): which of the token user's devices.

export const devicesRemoveBody = z.lazy(() => z.object({ device_key: deviceKeyField() }));

export type DevicesRemoveInput = z.output<typeof devicesRemoveBody>;
export type DevicesRemoveCall = Call<DevicesRemoveInput, Record<string, never>, Principal>;
