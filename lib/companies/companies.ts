import { type Clock, epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { type CheckedSmsText, changedSmsText, type SmsTextChanges } from '../sms/sms-text.js';
import {
  type CompanyRecord,
  type CompanyStatus,
  type CompanyUpdate,
  getCompany,
  putNewCompany,
  updateCompany,
} from '../store/company-store.js';
import type { Table } from '../store/table.js';
import type { CompanyLimitAttribute } from './company-limits.js';

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
  /** The company's own limits (company-limits.ts), or 'default' for the configured one. */
  limits?: Partial<Record<CompanyLimitAttribute, number | 'default'>>;
  /** The company's own SMS text (contract 7), checked whole before it is stored. */
  sms_text?: SmsTextChanges;
}

function storedSettings(settings: CompanySettings): Partial<Company> {
  const { status, require_verified_phone, sms_countries, limits = {} } = settings;
  return {
    ...(status !== undefined ? { status } : {}),
    ...(require_verified_phone !== undefined ? { require_verified_phone } : {}),
    ...(sms_countries !== undefined ? { sms_countries: sms_countries === 'all' ? undefined : [...new Set(sms_countries)].sort() } : {}),
    ...Object.fromEntries(Object.entries(limits).filter(([, value]) => typeof value === 'number')),
  };
}

/** The attributes a change removes: every country, a limit back to its default. */
function removedSettings(settings: CompanySettings): NonNullable<CompanyUpdate['remove']> {
  const limits = Object.entries(settings.limits ?? {}).filter(([, value]) => value === 'default');
  return [
    ...(settings.sms_countries === 'all' ? ['sms_countries' as const] : []),
    ...limits.map(([name]) => name as CompanyLimitAttribute),
  ];
}

export async function createCompany(
  table: Table,
  clock: Clock,
  name: string,
  settings: Omit<CompanySettings, 'sms_text'> = {},
): Promise<Company> {
  for (;;) {
    const company: Company = { company_id: newId(), name, created_at: epochSeconds(clock), ...storedSettings(settings), status: 'active' };
    // 128 random bits never collide in practice; if they do, draw again.
    if (await putNewCompany(table, company)) return company;
  }
}

export interface UpdatedCompany {
  company: Company;
  /** When SMS text changed: the sizes of its messages and any warning. */
  smsText?: CheckedSmsText;
}

/** Attempts at an SMS text change that another change to it keeps overtaking. */
const SMS_TEXT_ATTEMPTS = 3;

/**
 * Changes a company's settings; NOT_FOUND when there is no such company, SmsTextRefused when the
 * SMS text would break a rule of contract 7 (checked with codeTtlSeconds, the code lifetime a
 * message shows). Warm containers see the change within the cache time.
 */
export async function updateCompanySettings(
  table: Table,
  clock: Clock,
  companyId: string,
  settings: CompanySettings,
  codeTtlSeconds?: number,
): Promise<UpdatedCompany> {
  const changes = { ...storedSettings(settings), updated_at: epochSeconds(clock) };
  const remove = removedSettings(settings);
  if (!settings.sms_text) return { company: found(await updateCompany(table, companyId, changes, { remove })) };
  if (codeTtlSeconds === undefined) throw new Error('an SMS text change needs the code lifetime to be checked');

  for (let attempt = 1; ; attempt++) {
    // The new text is checked against the company as it is (its name, its other languages).
    const current = found(await getCompany(table, companyId));
    const smsText = changedSmsText(current.sms_text, settings.sms_text, current.name, codeTtlSeconds);
    const updated = await updateCompany(
      table,
      companyId,
      { ...changes, sms_text: smsText.settings },
      { remove: smsText.settings ? remove : [...remove, 'sms_text'], smsTextWas: current.sms_text ?? null },
    );
    if (updated) return { company: updated, smsText };
    if (attempt === SMS_TEXT_ATTEMPTS) throw new Error('the SMS text kept changing under this update; run it again');
  }
}

function found(company: Company | undefined): Company {
  if (!company) throw new AppError('COMPANY_NOT_FOUND');
  return company;
}
