import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { deviceKeyField } from './device-fields.js';

// The devices/approve body (API contract 3.15, second reading): the device on probation to settle.
export const devicesApproveBody = z.lazy(() => z.object({ device_key: deviceKeyField() }));

export type DevicesApproveCall = Call<z.output<typeof devicesApproveBody>, Record<string, never>, Principal>;
