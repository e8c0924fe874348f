import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { hexIdField } from '../ids.js';
import { staffReason } from '../staff/staff-gate.js';

// POST /wallet/v3/admin/company/approve (API contract 3.14, round 6): another admin applies a change
// of the company's security settings asked through company/update.

export const companyApproveBody = z.lazy(() => z.object({ grant_id: hexIdField('grant id'), reason: staffReason() }));

export type CompanyApproveCall = Call<z.output<typeof companyApproveBody>, Record<string, never>, Principal>;
