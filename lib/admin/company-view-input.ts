import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { staffReason } from '../staff/staff-gate.js';

// POST /wallet/v3/admin/company/view (API contract 3.14): the company's settings, for its admins.

export const companyViewBody = z.lazy(() => z.object({ reason: staffReason() }));

export type CompanyViewInput = z.output<typeof companyViewBody>;
export type CompanyViewCall = Call<CompanyViewInput, Record<string, never>, Principal>;
