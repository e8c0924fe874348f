import { companyUpdateBody } from '../admin/company-update-input.js';
import { companyUpdateResult } from '../admin/company-update-result.js';
import { duration, type Endpoint } from '../http/endpoint.js';
import { sampleCompanySettings } from './admin-company-view-endpoint.js';
import { COMPANY_SETTINGS, recordSessionUse, staffCall } from './grant-parts.js';
import { staffSessionRule } from './staff-session-rule.js';

export const adminCompanyUpdateEndpoint = {
  operationId: 'adminCompanyUpdate',
  method: 'POST',
  path: '/wallet/v3/admin/company/update',
  summary: 'Change the company’s settings (admin)',
  tag: 'admin',
  description: (config) =>
    'Changes what `npm run company:update` changes, by its rules: name, require_verified_phone (0 or 1), ' +
    'sms_countries (ISO 3166 alpha-2 codes or "all"), sms_text (templates by language with {code}, {brand} and ' +
    '{minutes}, null removing one; default_language, app_hash of 11 characters and webotp_domain, null removing ' +
    'each), warning_texts (the security warnings’ SMS by warning: a held change’s kind, phone, login_pin, ' +
    'transaction_pin, device_remove, delete, profile or export, or new_device; then by language, {brand} and no ' +
    '{code} or run of 4 digits; null removes one), phone_change_texts (warning_texts.phone by its first name: a ' +
    'language given in both is refused) and limits (each a whole number, or null for the configured default). ' +
    'Absent fields stay as they are; a top-level null or "" counts as absent, so removals go inside sms_text, ' +
    'warning_texts, phone_change_texts and limits. Every code and warning text, with the name, must fit 2 SMS: a ' +
    'refused one is 400 code 1 with every problem in data.errors and the sizes measured in data.sms_sizes, ' +
    'data.warning_sizes and data.phone_change_sizes, and nothing changes. Not the status: an admin ' +
    'would lock the whole company out, and only an operator could undo it. A change of a security setting ' +
    '(sms_text, sms_countries, warning_texts, phone_change_texts, webauthn, require_dpop 0 or 1, sms_payment_limit by currency or "none") takes two admins: checked now, it answers pending 1 ' +
    'with a grant_id and the settings as they still are, and is made when another admin approves it with ' +
    'company/approve within 72 hours (the whole change waits, other fields included). Any other change answers ' +
    `pending 0 and the settings as company/view does; every function sees them within ${duration(config.companyCacheSeconds)}. ` +
    'Recorded as company_update, or company_grant when it waits. ' +
    staffSessionRule(config, 'the admin role', { fresh: true }),
  auth: 'required',
  body: companyUpdateBody,
  result: companyUpdateResult,
  errors: ['FORBIDDEN', 'PHONE_NOT_VERIFIED'],
  failureData: ['sms_sizes', 'phone_change_sizes', 'warning_sizes'],
  examples: {
    request: {
      sms_text: { templates: { hi: '{code} आपका {brand} कोड है। {minutes} मिनट में समाप्त।' }, default_language: 'hi' },
      limits: { sms_per_hour: 5000 },
      reason: 'ticket 9120: Hindi text',
    },
    // A change of the code texts (a security setting) waits for another admin: the settings as they still are.
    result: {
      message: 'Change of sms_text asked: another admin approves it (company/approve) before approve_by, or it is void',
      in_force_within_seconds: 30,
      pending: 1,
      grant_id: '7c2e9a4b1d3f5e6a8b0c1d2e3f4a5b6c',
      approve_by: 1767571200,
      ...sampleCompanySettings,
    },
  },
  grants: {
    table: [
      ...staffCall,
      { actions: ['GetItem'], keys: ['user'] },
      { actions: ['UpdateItem'], keys: ['company'], attributes: COMPANY_SETTINGS },
      // A change of a security setting, asked as a grant another admin applies (adminCompanyApprove).
      { actions: ['PutItem'], keys: ['grant'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
