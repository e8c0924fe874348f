import type { App } from '../app-context.js';
import { COMPANY_NAME_MAX_LENGTH, type Company, EVERY_COUNTRY_WARNING } from '../companies/companies.js';
import { COMPANY_LIMIT_ATTRIBUTES, COMPANY_LIMITS, type CompanyLimitAttribute, limitsInForce } from '../companies/company-limits.js';
import {
  BUILT_IN_PHONE_CHANGE_TEXT,
  BUILT_IN_WARNING_TEXTS,
  measuredWarningTexts,
  WARNING_KEYS,
  type WarningKey,
  warningTextsOf,
} from '../companies/security-warning-texts.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { SMS_SEGMENT_UNITS } from '../sms/sms-segments.js';
import { APP_HASH_LENGTH, BUILT_IN_TEMPLATE, LONGEST_CODE, MAX_SMS_SEGMENTS, measuredSmsText, PLACEHOLDERS } from '../sms/sms-text.js';
import { auditStaffAction, staffActionRecord } from '../staff/staff-actions.js';
import { requireStaff } from '../staff/staff-gate.js';
import { getCompany } from '../store/company-store.js';
import { writeTransaction } from '../store/transactions.js';
import type { CompanyViewCall } from './company-view-input.js';
import type { CompanySettingsRules, CompanySettingsView, CompanyViewResult } from './company-view-result.js';

// POST /wallet/v3/admin/company/view (API contract 3.14): the company's settings as an admin sees
// and changes them, each text sized as company/update sizes it. Admin only: the settings decide
// where SMS go and what they cost. Recorded (action `company_view`) in the company's log only, as
// it names no user; not counted with the lookups of users, since it shows no one's data.

/** The settings as the back office shows them: read from the record field by field, so nothing else of it ever shows. */
export function companySettingsOf(company: Company, config: Pick<Config, 'otp'>): CompanySettingsView {
  const smsText = company.sms_text;
  // Sized as stored: a text over the limit (stored before the checks, or a longer code lifetime since) shows, not refuses.
  const codeTexts = measuredSmsText(smsText, company.name, config.otp.ttlSeconds);
  const warningTexts = measuredWarningTexts(smsText, company.name);
  const byWarning = <Value>(value: (warning: WarningKey) => Value) =>
    Object.fromEntries(WARNING_KEYS.map((warning) => [warning, value(warning)])) as Record<WarningKey, Value>;
  const inForce = limitsInForce(company, config);
  const limits = Object.fromEntries(
    COMPANY_LIMIT_ATTRIBUTES.map((attribute) => [attribute, { ...inForce[attribute], min: COMPANY_LIMITS[attribute].min }]),
  ) as Record<CompanyLimitAttribute, CompanySettingsView['limits']['sms_per_hour']>;
  return {
    company_id: company.company_id,
    name: company.name,
    require_verified_phone: company.require_verified_phone ? 1 : 0,
    sms_countries: company.sms_countries ?? 'all',
    sms_text: {
      templates: { ...smsText?.templates },
      default_language: smsText?.default_language ?? null,
      app_hash: smsText?.app_hash ?? null,
      webotp_domain: smsText?.webotp_domain ?? null,
    },
    phone_change_texts: { ...smsText?.phone_change_texts },
    warning_texts: byWarning((warning) => ({ ...warningTextsOf(smsText, warning) })),
    require_dpop: company.require_dpop ? 1 : 0,
    sms_payment_limit: { ...company.sms_payment_limit },
    webauthn: company.webauthn ? { rp_id: company.webauthn.rp_id, origins: [...company.webauthn.origins] } : null,
    limits,
    sms_sizes: codeTexts.sizes,
    phone_change_sizes: { ...warningTexts.sizes.phone },
    warning_sizes: byWarning((warning) => ({ ...warningTexts.sizes[warning] })),
    warnings: [
      ...(company.sms_countries ? [] : [EVERY_COUNTRY_WARNING]),
      ...[...codeTexts.problems, ...warningTexts.problems].map(({ detail }) => `${detail}: stored before this rule, sent shortened`),
      ...codeTexts.warnings,
    ],
    updated_at: company.updated_at ?? null,
  };
}

/** The rules company/update applies, for a page that checks a text as it is typed. */
export function companySettingsRules(config: Pick<Config, 'otp' | 'companyCacheSeconds'>): CompanySettingsRules {
  return {
    max_sms_segments: MAX_SMS_SEGMENTS,
    sms_segment_units: SMS_SEGMENT_UNITS,
    template_placeholders: PLACEHOLDERS.map((name) => `{${name}}`),
    phone_change_placeholders: ['{brand}'],
    sized_with: { code_digits: LONGEST_CODE.length, minutes: Math.round(config.otp.ttlSeconds / 60) },
    name_max_length: COMPANY_NAME_MAX_LENGTH,
    app_hash_length: APP_HASH_LENGTH,
    built_in_template: BUILT_IN_TEMPLATE,
    built_in_phone_change_text: BUILT_IN_PHONE_CHANGE_TEXT,
    warning_kinds: WARNING_KEYS,
    built_in_warning_texts: BUILT_IN_WARNING_TEXTS,
    in_force_within_seconds: config.companyCacheSeconds,
  };
}

export async function companyView(app: App, call: CompanyViewCall): Promise<CompanyViewResult> {
  const { companyId } = call.principal;
  const staff = await requireStaff(app, call.principal, ['admin']);
  const { record, writes } = await staffActionRecord(app, staff.chain, {
    companyId,
    actorId: staff.userId,
    action: 'company_view',
    reason: call.body.reason,
  });
  await writeTransaction(app.table, writes);
  auditStaffAction(app, call.origin, record, 'shown');
  // As stored now, not as this function's cache of companies holds it: an admin sees their change at once.
  const company = await getCompany(app.table, companyId, true);
  if (!company) throw new AppError('COMPANY_NOT_FOUND');
  return { company: companySettingsOf(company, app.config), rules: companySettingsRules(app.config) };
}
