import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { deviceKeyField } from '../devices/device-fields.js';
import { hexIdField } from '../ids.js';
import { staffReason } from '../staff/staff-gate.js';

// POST /wallet/v3/admin/employees/devices/approve (API contract 3.14, second reading): another admin
// settles an employee's device.

export const employeeDeviceApproveBody = z.lazy(() =>
  z.object({ user_id: hexIdField('user_id'), device_key: deviceKeyField(), reason: staffReason() }),
);

export type EmployeeDeviceApproveCall = Call<z.output<typeof employeeDeviceApproveBody>, Record<string, never>, Principal>;

/** The employee's device settled: its PIN logins are strong from now on. */
export const employeeDeviceApproveResult = z.object({
  message: z.string(),
  user_id: z.string(),
  device_key: z.string(),
});

export type EmployeeDeviceApproveResult = z.output<typeof employeeDeviceApproveResult>;
