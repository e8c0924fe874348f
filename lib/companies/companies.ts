import { type Clock, epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { type CompanyRecord, type CompanyStatus, getCompany, putNewCompany, updateCompany } from '../store/company-store.js';
import type { Table } from '../store/table.js';

export type Company = CompanyRecord;

/**
 * Active companies by id. A warm container keeps each for a short while: every call needs its
 * company, and companies change rarely. Unknown ids are not kept, so a new company works at once.
 */
export class ActiveCompanies {
  private readonly kept = new Map<string, { company: Company; until: number }>();

  constructor(
    private readonly table: Table,
    private readonly clock: Clock,
    private readonly keepSeconds: number,
  ) {}

  /** The active company with this id (lower-case hex), or COMPANY_NOT_FOUND. */
  async require(companyId: string): Promise<Company> {
    const kept = this.kept.get(companyId);
    if (kept && kept.until > this.clock.now()) return kept.company;

    const company = await getCompany(this.table, companyId);
    if (company?.status !== 'active') {
      this.kept.delete(companyId);
      throw new AppError('COMPANY_NOT_FOUND');
    }
    this.kept.set(companyId, { company, until: this.clock.now() + this.keepSeconds * 1000 });
    return company;
  }
}

/** What an operator sets on a company (contract 6); absent fields are left as they are. */
export interface CompanySettings {
  /** A disabled company's every call answers 404, code 3, as an unknown one's. */
  status?: CompanyStatus;
  require_verified_phone?: boolean;
  /** ISO 3166 alpha-2 codes, or 'all' for every country. */
  sms_countries?: string[] | 'all';
}

function storedSettings(settings: CompanySettings): Partial<Company> {
  const { status, require_verified_phone, sms_countries } = settings;
  return {
    ...(status !== undefined ? { status } : {}),
    ...(require_verified_phone !== undefined ? { require_verified_phone } : {}),
    ...(sms_countries !== undefined ? { sms_countries: sms_countries === 'all' ? undefined : [...new Set(sms_countries)].sort() } : {}),
  };
}

export async function createCompany(table: Table, clock: Clock, name: string, settings: CompanySettings = {}): Promise<Company> {
  for (;;) {
    const company: Company = { company_id: newId(), name, created_at: epochSeconds(clock), ...storedSettings(settings), status: 'active' };
    // 128 random bits never collide in practice; if they do, draw again.
    if (await putNewCompany(table, company)) return company;
  }
}

/** Changes a company's settings; NOT_FOUND when there is no such company. Warm containers see it within the cache time. */
export async function updateCompanySettings(table: Table, clock: Clock, companyId: string, settings: CompanySettings): Promise<Company> {
  const updated = await updateCompany(
    table,
    companyId,
    { ...storedSettings(settings), updated_at: epochSeconds(clock) },
    settings.sms_countries === 'all',
  );
  if (!updated) throw new AppError('COMPANY_NOT_FOUND');
  return updated;
}
