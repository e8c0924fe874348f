import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { App } from '../../lib/app.js';
import { createCompany } from '../../lib/companies/companies.js';
import { getCompany } from '../../lib/store/company-store.js';

/** The demo company recorded in `file`, created (and recorded) when missing from the table. */
export async function demoCompanyId(app: Pick<App, 'table' | 'clock'>, file: string): Promise<string> {
  if (existsSync(file)) {
    const { company_id: recorded } = JSON.parse(readFileSync(file, 'utf8')) as { company_id?: string };
    if (recorded && (await getCompany(app.table, recorded))) return recorded;
  }
  const company = await createCompany(app.table, app.clock, 'Demo Company');
  writeFileSync(file, `${JSON.stringify({ company_id: company.company_id })}\n`);
  return company.company_id;
}
