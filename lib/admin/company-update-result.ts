import * as z from 'zod/mini';
import { companySettingsRulesSchema, companySettingsSchema } from './company-view-result.js';

/** What company/update answers: the settings as company/view shows them, now stored, and when every function has them. */
export const companyUpdateResult = z.lazy(() =>
  z.object({
    message: z.string(),
    in_force_within_seconds: z
      .int()
      .check(z.meta({ description: 'Functions keep a company this long (COMPANY_CACHE_SECONDS): every call sees the change within it' })),
    company: companySettingsSchema(),
    rules: companySettingsRulesSchema(),
  }),
);

export type CompanyUpdateResult = z.output<typeof companyUpdateResult>;
