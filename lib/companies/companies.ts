import { randomBytes } from 'node:crypto';
import { clock, nowSeconds } from '../clock.js';
import { config } from '../config.js';
import { AppError } from '../errors.js';
import { getCompany, putNewCompany, type CompanyRecord } from '../store/company-store.js';

export type Company = CompanyRecord;

export const COMPANY_ID_PATTERN = /^[0-9a-fA-F]{32}$/;

// Warm containers keep active companies for a short while: every call needs its company,
// and companies change rarely. Unknown ids are not cached, so a new company works at once.
const activeCompanies = new Map<string, { company: Company; until: number }>();

/** The active company with this id (lower-case hex), or COMPANY_NOT_FOUND. */
export async function requireActiveCompany(companyId: string): Promise<Company> {
  const cached = activeCompanies.get(companyId);
  if (cached && cached.until > clock.now()) return cached.company;

  const company = await getCompany(companyId);
  if (!company || company.status !== 'active') {
    activeCompanies.delete(companyId);
    throw new AppError('COMPANY_NOT_FOUND');
  }
  activeCompanies.set(companyId, { company, until: clock.now() + config.companyCacheSeconds * 1000 });
  return company;
}

export async function createCompany(name: string): Promise<Company> {
  for (;;) {
    const company: Company = {
      company_id: randomBytes(16).toString('hex'),
      name,
      status: 'active',
      created_at: nowSeconds(),
    };
    // 128 random bits never collide in practice; if they do, draw again.
    if (await putNewCompany(company)) return company;
  }
}
