import * as z from 'zod/mini';
import { companySettingsRulesSchema, companySettingsSchema } from './company-view-result.js';

/**
 * What company/update and company/approve answer: the settings as company/view shows them, now
 * stored, and when every function has them; or, for a change of a security setting asked with
 * company/update, the settings as they still are with the grant another admin approves.
 */
export const companyUpdateResult = z.lazy(() =>
  z.object({
    message: z.string(),
    in_force_within_seconds: z
      .int()
      .check(z.meta({ description: 'Functions keep a company this long (COMPANY_CACHE_SECONDS): every call sees the change within it' })),
    pending: z
      .union([z.literal(0), z.literal(1)])
      .check(
        z.meta({ description: '1: a change of a security setting, asked, not yet made: another admin approves it (company/approve)' }),
      ),
    grant_id: z.optional(z.string().check(z.meta({ description: 'The grant of the change (asked, or approved by this call)' }))),
    approve_by: z.optional(z.number().check(z.meta({ description: 'UNIX seconds: the grant is void, unapproved, from then on' }))),
    company: companySettingsSchema(),
    rules: companySettingsRulesSchema(),
  }),
);

export type CompanyUpdateResult = z.output<typeof companyUpdateResult>;
