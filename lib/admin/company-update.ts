import type { App } from '../app-context.js';
import { type Company, type CompanySettings, checkCompanySettings, updateCompanySettings } from '../companies/companies.js';
import { smsCountryCode } from '../companies/sms-countries.js';
import { AppError, ErrorCodes, fieldError } from '../errors.js';
import { canonicalLanguageTag, MAX_SMS_SEGMENTS, type SmsTextChanges, type SmsTextProblem, SmsTextRefused } from '../sms/sms-text.js';
import { auditStaffAction, staffActionRecord } from '../staff/staff-actions.js';
import { requireStaff, type Staff } from '../staff/staff-gate.js';
import { getCompany } from '../store/company-store.js';
import { writeTransaction } from '../store/transactions.js';
import type { CompanyUpdateCall, CompanyUpdateInput } from './company-update-input.js';
import type { CompanyUpdateResult } from './company-update-result.js';
import { companySettingsOf, companySettingsRules } from './company-view.js';
import { newGrant } from './grants.js';
import { securitySettingsIn } from './security-settings.js';

// POST /wallet/v3/admin/company/update (API contract 3.14, 6 and 7): an admin changes the company's
// settings as `npm run company:update` does, by the same rules (lib/companies/), and the change and
// its record (action `company_update`, in the company's log only) are one transaction. A refused
// text changes and records nothing: 400 code 1, every problem in data.errors and the sizes measured
// in data. Not the status: an admin who disabled their own company would lock everyone out of it.

/** null or "" removes (the command's empty value); a setting's text otherwise as given, trimmed as the command trims it. */
const removedOr = (value: string | null | undefined) =>
  value === undefined ? undefined : value === null || value.trim() === '' ? null : value.trim();

/** Texts by language as the rules take them, in the order given (undefined: none given); null or "" removes one. */
function textChanges(texts: Record<string, string | null> | undefined): { language: string; text: string | null }[] | undefined {
  const entries = Object.entries(texts ?? {});
  return entries.length ? entries.map(([language, text]) => ({ language, text: text === null || text === '' ? null : text })) : undefined;
}

/** The body as the settings updateCompanySettings takes: absent fields change nothing. */
export function settingsOf(body: CompanyUpdateInput): CompanySettings {
  const { sms_text: smsText } = body;
  const templates = textChanges(smsText?.templates);
  // phone_change_texts are the phone warning's: given both ways, a language is given twice (refused).
  const warningTexts = [
    ...(textChanges(body.phone_change_texts) ?? []).map((change) => ({ warning: 'phone', ...change })),
    ...Object.entries(body.warning_texts ?? {}).flatMap(([warning, texts]) =>
      (textChanges(texts) ?? []).map((change) => ({ warning, ...change })),
    ),
  ];
  const changes: SmsTextChanges | undefined = smsText && {
    ...(templates ? { templates } : {}),
    ...(smsText.default_language !== undefined ? { default_language: removedOr(smsText.default_language) } : {}),
    ...(smsText.app_hash !== undefined ? { app_hash: removedOr(smsText.app_hash) } : {}),
    ...(smsText.webotp_domain !== undefined ? { webotp_domain: removedOr(smsText.webotp_domain) } : {}),
  };
  const limits = body.limits && Object.entries(body.limits).filter(([, value]) => value !== undefined);
  const settings: CompanySettings = {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.require_verified_phone !== undefined ? { require_verified_phone: body.require_verified_phone === 1 } : {}),
    ...(body.sms_countries !== undefined
      ? { sms_countries: body.sms_countries === 'all' ? 'all' : body.sms_countries.map(smsCountryCode) }
      : {}),
    ...(changes && Object.keys(changes).length ? { sms_text: changes } : {}),
    ...(warningTexts.length ? { warning_texts: warningTexts } : {}),
    ...(body.webauthn ? { webauthn: { rp_id: body.webauthn.rp_id, origins: body.webauthn.origins } } : {}),
    ...(body.require_dpop !== undefined ? { require_dpop: body.require_dpop === 1 } : {}),
    ...(body.sms_payment_limit !== undefined ? { sms_payment_limit: body.sms_payment_limit } : {}),
    ...(limits?.length ? { limits: Object.fromEntries(limits.map(([name, value]) => [name, value ?? 'default'])) } : {}),
  };
  return settings;
}

/** The request field a refused text's problem is about; the name, when a rename alone made a stored text too long. */
function fieldOf(problem: SmsTextProblem, refusal: SmsTextRefused, body: CompanyUpdateInput): string {
  const language = problem.language ?? '';
  const tooLong = (sizes: Record<string, { segments: number }> | undefined) => (sizes?.[language]?.segments ?? 0) > MAX_SMS_SEGMENTS;
  switch (problem.setting) {
    case 'template':
      if (tooLong(refusal.sizes.codeTexts) && body.name !== undefined && !body.sms_text) return 'name';
      return language === 'built-in' ? 'sms_text' : `sms_text.templates.${language}`;
    case 'warning_text': {
      const warning = problem.warning ?? '';
      const warningsGiven = body.phone_change_texts !== undefined || body.warning_texts !== undefined;
      if (tooLong(refusal.sizes.warningTexts?.[warning]) && body.name !== undefined && !warningsGiven) return 'name';
      // The phone warning's texts on the field they came in: phone_change_texts unless warning_texts.phone gave the language.
      const viaWarningTexts = Object.keys(body.warning_texts?.phone ?? {}).some((tag) => (canonicalLanguageTag(tag) ?? tag) === language);
      return warning === 'phone' && !viaWarningTexts ? `phone_change_texts.${language}` : `warning_texts.${warning}.${language}`;
    }
    default:
      return `sms_text.${problem.setting}`;
  }
}

/** 400 code 1: every problem on its field, and the sizes measured, so a page can show each text's count. */
export function refusedText(refusal: SmsTextRefused, body: CompanyUpdateInput): AppError {
  const { codeTexts, warningTexts } = refusal.sizes;
  const phoneChangeTexts = warningTexts?.phone;
  return new AppError('BAD_REQUEST', {
    detail: `SMS text refused, nothing changed: ${refusal.message}`,
    fields: refusal.problems.map((problem) => ({
      code: ErrorCodes.BAD_REQUEST.code,
      field: fieldOf(problem, refusal, body),
      detail: problem.detail,
    })),
    data: {
      ...(codeTexts ? { sms_sizes: codeTexts } : {}),
      ...(phoneChangeTexts ? { phone_change_sizes: phoneChangeTexts } : {}),
      ...(warningTexts ? { warning_sizes: warningTexts } : {}),
    },
  });
}

/** The answer of a change applied now: the settings as company/view shows them, and when every function has them. */
export function appliedAnswer(app: App, company: Company, grantId?: string): CompanyUpdateResult {
  return {
    message: `Company settings updated: every function has them within ${app.config.companyCacheSeconds} seconds`,
    in_force_within_seconds: app.config.companyCacheSeconds,
    pending: 0,
    ...(grantId ? { grant_id: grantId } : {}),
    company: companySettingsOf(company, app.config),
    rules: companySettingsRulesOf(app),
  };
}

const companySettingsRulesOf = (app: App) => companySettingsRules(app.config);

/**
 * A change of a security setting (security-settings.ts): checked now by the rules it will be applied
 * by, then stored as a grant another admin approves within APPROVAL_WITHIN_SECONDS (company/approve),
 * with its record, in one transaction. Nothing changes until then.
 */
async function askForSettings(
  app: App,
  call: CompanyUpdateCall,
  staff: Staff,
  settings: CompanySettings,
  names: string[],
): Promise<CompanyUpdateResult> {
  const { companyId } = call.principal;
  const { reason: _reason, ...asked } = call.body;
  const { grant, write } = newGrant(app, staff, { kind: 'company', settings: asked, setting_names: names });
  const { record, writes } = await staffActionRecord(app, staff.chain, {
    companyId,
    actorId: staff.userId,
    action: 'company_grant',
    reason: call.body.reason,
    details: { grant_id: grant.grant_id, settings: names.join(' ') },
  });
  try {
    await checkCompanySettings(app.table, companyId, settings, app.config.otp.ttlSeconds);
  } catch (error) {
    if (!(error instanceof SmsTextRefused)) throw error;
    auditStaffAction(app, call.origin, record, 'refused');
    throw refusedText(error, call.body);
  }
  await writeTransaction<string>(app.table, [write, ...writes]);
  auditStaffAction(app, call.origin, record, 'asked');
  const current = await getCompany(app.table, companyId, true);
  return {
    message: `Change of ${names.join(', ')} asked: another admin approves it (company/approve) before approve_by, or it is void`,
    in_force_within_seconds: app.config.companyCacheSeconds,
    pending: 1,
    grant_id: grant.grant_id,
    approve_by: grant.expires_at,
    company: companySettingsOf(current!, app.config),
    rules: companySettingsRulesOf(app),
  };
}

export async function companyUpdate(app: App, call: CompanyUpdateCall): Promise<CompanyUpdateResult> {
  const { companyId } = call.principal;
  const staff = await requireStaff(app, call.principal, ['admin'], { fresh: true });
  const settings = settingsOf(call.body);
  if (Object.keys(settings).length === 0) {
    throw fieldError(
      'BAD_REQUEST',
      'body',
      'names no setting to change (name, require_verified_phone, sms_countries, sms_text, phone_change_texts, warning_texts, limits)',
    );
  }
  // A change of a security setting takes two admins: the whole change waits for the second.
  const security = securitySettingsIn(call.body);
  if (security.length) return askForSettings(app, call, staff, settings, security);
  const { record, writes } = await staffActionRecord(app, staff.chain, {
    companyId,
    actorId: staff.userId,
    action: 'company_update',
    reason: call.body.reason,
  });
  let updated: Awaited<ReturnType<typeof updateCompanySettings>>;
  try {
    updated = await updateCompanySettings(app.table, app.clock, companyId, settings, app.config.otp.ttlSeconds, writes);
  } catch (error) {
    if (!(error instanceof SmsTextRefused)) throw error;
    auditStaffAction(app, call.origin, record, 'refused');
    throw refusedText(error, call.body);
  }
  auditStaffAction(app, call.origin, record, 'changed');
  return appliedAnswer(app, updated.company);
}
