import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { staffReason } from '../staff/staff-gate.js';

// POST /wallet/v3/admin/employees/role (API contract 3.14): an admin gives an employee of the
// company a role, or takes it away.

export const employeeRoleBody = z.lazy(() =>
  z.object({
    user_id: z.string().check(z.regex(/^[0-9a-f]{32}$/, 'must be a user id (32 hex characters)')),
    role: z.enum(['support', 'admin', 'none'], { error: 'must be "support", "admin" or "none"' }),
    reason: staffReason(),
  }),
);

export type EmployeeRoleInput = z.output<typeof employeeRoleBody>;
export type EmployeeRoleCall = Call<EmployeeRoleInput, Record<string, never>, Principal>;
