import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { staffReason } from '../staff/staff-gate.js';

// POST /wallet/v3/admin/approvals/list (API contract 3.14, round 6): what awaits a second admin.

export const approvalsListBody = z.lazy(() => z.object({ reason: staffReason() }));

export type ApprovalsListCall = Call<z.output<typeof approvalsListBody>, Record<string, never>, Principal>;
