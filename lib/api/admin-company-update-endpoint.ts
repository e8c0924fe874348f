import { companyUpdateBody } from '../admin/company-update-input.js';
import { companyUpdateResult } from '../admin/company-update-result.js';
import { duration, type Endpoint } from '../http/endpoint.js';
import { sampleCompanySettings } from './admin-company-view-endpoint.js';

export const adminCompanyUpdateEndpoint = {
  operationId: 'adminCompanyUpdate',
  method: 'POST',
  path: '/wallet/v3/admin/company/update',
  summary: 'Change the company’s settings (admin)',
  tag: 'admin',
  description: ({ admin, companyCacheSeconds }) =>
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
    'would lock the whole company out, and only an operator could undo it. Answers the settings as company/view ' +
    `does; every function sees them within ${duration(companyCacheSeconds)}. Needs an employee token with the admin ` +
    `role (support: 403 code 5) whose session began by OTP or PIN login under ${duration(admin.sessionSeconds)} ago, ` +
    'and a reason, kept in the record of the change (action company_update, in the company’s log, written with it).',
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
    result: {
      message: 'Company settings updated: every function has them within 30 seconds',
      in_force_within_seconds: 30,
      ...sampleCompanySettings,
    },
  },
} as const satisfies Endpoint;
