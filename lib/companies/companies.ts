import { type Clock, epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { SmsSize } from '../sms/sms-segments.js';
import { type CheckedSmsText, changedSmsText, type SizesMeasured, type SmsTextChanges, SmsTextRefused } from '../sms/sms-text.js';
import {
  type CompanyRecord,
  type CompanyStatus,
  type CompanyUpdate,
  getCompany,
  putNewCompany,
  type SmsTextSettings,
  updateCompany,
} from '../store/company-store.js';
import type { Table } from '../store/table.js';
import type { LabelledItem } from '../store/transactions.js';
import type { CompanyLimitAttribute } from './company-limits.js';
import { changedWarningTexts, type StoredWarningTexts, type WarningSizes, type WarningTextChange } from './security-warning-texts.js';

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

/** A company's name: 1 to this many characters (UTF-16 units), and it must fit every code text. */
export const COMPANY_NAME_MAX_LENGTH = 200;

/** The name as stored (trimmed), or undefined when it is empty or longer than COMPANY_NAME_MAX_LENGTH. */
export function companyName(name: string): string | undefined {
  const trimmed = name.trim();
  return trimmed && trimmed.length <= COMPANY_NAME_MAX_LENGTH ? trimmed : undefined;
}

/**
 * The code lifetime a new company's name is sized with when the caller names none: any lifetime
 * under 100 minutes shows in at most these two digits.
 */
const LONGEST_TWO_DIGIT_TTL_SECONDS = 99 * 60;

/** What whoever sets the countries is told while SMS may go to every one (sms_countries absent). */
export const EVERY_COUNTRY_WARNING =
  'SMS may go to every country. Each destination costs up to tens of cents a message and is the favourite target of SMS pumping';

/** What an operator sets on a company (contract 6); absent fields are left as they are. */
export interface CompanySettings {
  /** Checked with every code text the company sends, as an SMS text change is. */
  name?: string;
  /** A disabled company's every call answers 404, code 3, as an unknown one's. */
  status?: CompanyStatus;
  require_verified_phone?: boolean;
  /** ISO 3166 alpha-2 codes, or 'all' for every country. */
  sms_countries?: string[] | 'all';
  /** The company's own limits (company-limits.ts), or 'default' for the configured one. */
  limits?: Partial<Record<CompanyLimitAttribute, number | 'default'>>;
  /** The company's own SMS text (contract 7), checked whole before it is stored. */
  sms_text?: SmsTextChanges;
  /**
   * The security warnings per warning and language (security-warning-texts.ts), stored in sms_text
   * beside the templates; the phone change's (`phone`) where --phone-change-text first stored them.
   */
  warning_texts?: WarningTextChange[];
  /**
   * What SMS-strength sessions may approve in 24 hours, per currency, as normalised decimal strings
   * (contract 3.15); 'none': no SMS-strength payment at all (the default).
   */
  sms_payment_limit?: Record<string, string> | 'none';
  /** Passkeys' relying party id and origins (contract 3.16, checked by lib/passkeys/webauthn-settings.ts); 'none' removes them. */
  webauthn?: { rp_id: string; origins: string[] } | 'none';
  /** Every login must carry a DPoP proof (contract 3.17). */
  require_dpop?: boolean;
}

function storedSettings(settings: CompanySettings): Partial<Company> {
  const { name, status, require_verified_phone, require_dpop, sms_countries, sms_payment_limit, webauthn, limits = {} } = settings;
  return {
    ...(require_dpop !== undefined ? { require_dpop } : {}),
    ...(webauthn !== undefined && webauthn !== 'none'
      ? { webauthn: { rp_id: webauthn.rp_id, origins: [...new Set(webauthn.origins)] } }
      : {}),
    ...(sms_payment_limit !== undefined && sms_payment_limit !== 'none' ? { sms_payment_limit } : {}),
    ...(name !== undefined ? { name } : {}),
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
    ...(settings.sms_payment_limit === 'none' ? ['sms_payment_limit' as const] : []),
    ...(settings.webauthn === 'none' ? ['webauthn' as const] : []),
    ...limits.map(([name]) => name as CompanyLimitAttribute),
  ];
}

/**
 * Creates an active company; SmsTextRefused when the built-in text with its name would need more
 * than 2 SMS (sized with codeTtlSeconds, the code lifetime a message shows).
 */
export async function createCompany(
  table: Table,
  clock: Clock,
  name: string,
  settings: Omit<CompanySettings, 'sms_text' | 'warning_texts' | 'name'> = {},
  codeTtlSeconds = LONGEST_TWO_DIGIT_TTL_SECONDS,
): Promise<Company> {
  sizedSmsText({ name }, codeTtlSeconds);
  for (;;) {
    const company: Company = { company_id: newId(), name, created_at: epochSeconds(clock), ...storedSettings(settings), status: 'active' };
    // 128 random bits never collide in practice; if they do, draw again.
    if (await putNewCompany(table, company)) return company;
  }
}

/**
 * Every code text the company can send with its name (its templates; the built-in text while it
 * has no default language), sized with the longest code; SmsTextRefused when one needs more than 2 SMS.
 */
export function sizedSmsText(company: Pick<Company, 'name' | 'sms_text'>, codeTtlSeconds: number): CheckedSmsText {
  return changedSmsText(company.sms_text, {}, company.name, codeTtlSeconds);
}

export interface UpdatedCompany {
  company: Company;
  /** When the SMS text or the name changed: the sizes of its messages and any warning. */
  smsText?: CheckedSmsText;
  /** When the SMS text or the name changed: the size of each warning text, by warning and language. */
  warningSizes?: WarningSizes;
  /** The phone change's of warningSizes, by language. */
  phoneChangeSizes?: Record<string, SmsSize>;
}

/** Attempts at an SMS text or name change that another change to either keeps overtaking. */
const SMS_TEXT_ATTEMPTS = 3;

/**
 * Changes a company's settings; NOT_FOUND when there is no such company, SmsTextRefused when the
 * SMS text or a warning text, or the name in them, would break a rule of contract 7 (checked with
 * codeTtlSeconds, the code lifetime a message shows). Warm containers see the change within the cache time.
 * `alongside`: items written in the same transaction as the change (the back office's record of it).
 */
export async function updateCompanySettings(
  table: Table,
  clock: Clock,
  companyId: string,
  settings: CompanySettings,
  codeTtlSeconds?: number,
  alongside?: LabelledItem<string>[],
): Promise<UpdatedCompany> {
  const changes = { ...storedSettings(settings), updated_at: epochSeconds(clock) };
  const remove = removedSettings(settings);
  const textChange = settings.sms_text !== undefined || settings.warning_texts !== undefined;
  if (!textChange && settings.name === undefined) {
    return { company: found(await updateCompany(table, companyId, changes, { remove, alongside })) };
  }
  if (codeTtlSeconds === undefined) throw new Error('an SMS text or name change needs the code lifetime to be checked');

  for (let attempt = 1; ; attempt++) {
    // Checked against the company as it is (its name, its other languages), and written only
    // while both are still as read: a rename and a template change side by side are sized together.
    // Strongly consistent: a retry after another change overtook this one reads that change.
    const current = found(await getCompany(table, companyId, true));
    const { smsText, warnings } = checkedTexts(current, settings, codeTtlSeconds);
    const stored = withWarningTexts(smsText.settings, warnings.stored);
    const updated = await updateCompany(
      table,
      companyId,
      { ...changes, ...(textChange ? { sms_text: stored } : {}) },
      {
        remove: textChange && !stored ? [...remove, 'sms_text'] : remove,
        smsTextWas: current.sms_text ?? null,
        nameWas: current.name,
        alongside,
      },
    );
    if (updated) return { company: updated, smsText, warningSizes: warnings.sizes, phoneChangeSizes: warnings.sizes.phone ?? {} };
    if (attempt === SMS_TEXT_ATTEMPTS) throw new Error('the SMS text or name kept changing under this update; run it again');
  }
}

/**
 * The company's code and warning texts once these settings apply, each checked by the rules of
 * contract 7 with the name they will have; SmsTextRefused listing every problem at once, with every
 * size measured.
 */
function checkedTexts(current: Company, settings: CompanySettings, codeTtlSeconds: number) {
  const name = settings.name ?? current.name;
  // Both checked, so that a refusal lists every problem of the change at once, with every size measured.
  const refusals: SmsTextRefused[] = [];
  const smsText = refusedInto(refusals, () => changedSmsText(current.sms_text, settings.sms_text ?? {}, name, codeTtlSeconds));
  const warnings = refusedInto(refusals, () => changedWarningTexts(current.sms_text, settings.warning_texts ?? [], name));
  if (!smsText || !warnings) {
    // The sizes of the texts that passed, and of those refused for their size alone.
    const sizes: SizesMeasured = {
      ...(smsText ? { codeTexts: smsText.sizes } : {}),
      ...(warnings ? { warningTexts: warnings.sizes } : {}),
    };
    throw new SmsTextRefused(
      refusals.flatMap(({ problems }) => problems),
      Object.assign(sizes, ...refusals.map((refusal) => refusal.sizes)),
    );
  }
  return { smsText, warnings };
}

/**
 * Checks a change of a company's settings as updateCompanySettings would apply it now, writing
 * nothing: SmsTextRefused as it would refuse it (a change a second admin approves later is checked
 * when asked, and again when applied).
 */
export async function checkCompanySettings(
  table: Table,
  companyId: string,
  settings: CompanySettings,
  codeTtlSeconds: number,
): Promise<void> {
  if (settings.sms_text === undefined && settings.warning_texts === undefined && settings.name === undefined) return;
  checkedTexts(found(await getCompany(table, companyId, true)), settings, codeTtlSeconds);
}

/** The check's result, or undefined with its refusal kept in refusals. */
function refusedInto<T>(refusals: SmsTextRefused[], check: () => T): T | undefined {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof SmsTextRefused)) throw error;
    refusals.push(error);
    return undefined;
  }
}

/** The code text settings with the warning texts beside the templates (changedSmsText keeps only its own). */
function withWarningTexts(settings: SmsTextSettings | undefined, texts: StoredWarningTexts): SmsTextSettings | undefined {
  return Object.keys(texts).length ? { ...(settings ?? { templates: {} }), ...texts } : settings;
}

function found(company: Company | undefined): Company {
  if (!company) throw new AppError('COMPANY_NOT_FOUND');
  return company;
}
