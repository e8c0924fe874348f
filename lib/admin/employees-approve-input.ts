import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { hexIdField } from '../ids.js';
import { staffReason } from '../staff/staff-gate.js';

// POST /wallet/v3/admin/employees/approve (API contract 3.14, round 6): another admin approves a
// role grant asked through employees/role.

export const employeesApproveBody = z.lazy(() => z.object({ grant_id: hexIdField('grant id'), reason: staffReason() }));

export type EmployeesApproveCall = Call<z.output<typeof employeesApproveBody>, Record<string, never>, Principal>;
