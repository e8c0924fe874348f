import { companyViewBody } from '../admin/company-view-input.js';
import { companyViewResult } from '../admin/company-view-result.js';
import { BUILT_IN_WARNING_TEXTS, WARNING_KEYS } from '../companies/security-warning-texts.js';
import { duration, type Endpoint } from '../http/endpoint.js';
import { appendStaffRecord, keepAnswers, readCompanyAndSession, recordSessionUse } from './grant-parts.js';
import { staffSessionRule } from './staff-session-rule.js';

const limit = (value: number, fallback: number, min = 0) =>
  ({ value, default: fallback, source: value === fallback ? 'default' : 'company', min }) as const;

const PHONE_CHANGE_HINDI = 'आपका {brand} खाता दूसरे नंबर पर ले जाया गया। यह आपने नहीं किया तो {brand} से संपर्क करें।';
const LOGIN_PIN_HINDI = 'आपके {brand} खाते के लिए नया लॉगिन PIN माँगा गया। यह आपने नहीं किया तो {brand} ऐप खोलकर रद्द करें।';
const PHONE_CHANGE_HINDI_SIZE = { segments: 2, encoding: 'UCS-2', units: 91 } as const;
/** Every warning with none of the company's texts but the phone change's and the login PIN's. */
const byWarning = <Value>(value: Value) => Object.fromEntries(WARNING_KEYS.map((warning) => [warning, value]));

/** A company's settings as company/view and company/update answer them (a Hindi and an English text, an app hash). */
export const sampleCompanySettings = {
  company: {
    company_id: '0a1b2c3d4e5f60718293a4b5c6d7e8f9',
    name: 'Chai Pay',
    require_verified_phone: 1,
    require_dpop: 0,
    sms_payment_limit: { INR: '2000' },
    sms_countries: ['IN'],
    sms_text: {
      templates: {
        en: '{code} is your {brand} code. It expires in {minutes} minutes.',
        hi: '{code} आपका {brand} कोड है। {minutes} मिनट में समाप्त।',
      },
      default_language: 'hi',
      app_hash: 'FA+9qCX9VSu',
      webotp_domain: null,
    },
    phone_change_texts: { hi: PHONE_CHANGE_HINDI },
    warning_texts: { ...byWarning({}), phone: { hi: PHONE_CHANGE_HINDI }, login_pin: { hi: LOGIN_PIN_HINDI } },
    limits: {
      sms_per_hour: limit(5000, 1000, 1),
      sms_per_prefix_per_hour: limit(20, 20),
      sends_per_address_per_hour: limit(30, 30),
      verifies_per_address: limit(30, 30),
    },
    sms_sizes: { en: { segments: 1, encoding: 'GSM-7', units: 66 }, hi: { segments: 1, encoding: 'UCS-2', units: 59 } },
    phone_change_sizes: { hi: PHONE_CHANGE_HINDI_SIZE },
    warning_sizes: {
      ...byWarning({}),
      phone: { hi: PHONE_CHANGE_HINDI_SIZE },
      login_pin: { hi: { segments: 2, encoding: 'UCS-2', units: 100 } },
    },
    warnings: [],
    updated_at: 1767312000,
  },
  rules: {
    max_sms_segments: 2,
    sms_segment_units: { 'GSM-7': { single: 160, part: 153 }, 'UCS-2': { single: 70, part: 67 } },
    template_placeholders: ['{code}', '{brand}', '{minutes}'],
    phone_change_placeholders: ['{brand}'],
    sized_with: { code_digits: 6, minutes: 5 },
    name_max_length: 200,
    app_hash_length: 11,
    built_in_template: '{code} is your {brand} verification code. It expires in {minutes} minutes. Never share it.',
    built_in_phone_change_text: 'Your {brand} account was moved to another phone number. If you did not do this, contact {brand} at once.',
    warning_kinds: WARNING_KEYS,
    built_in_warning_texts: BUILT_IN_WARNING_TEXTS,
    in_force_within_seconds: 30,
  },
} as const;

export const adminCompanyViewEndpoint = {
  operationId: 'adminCompanyView',
  method: 'POST',
  path: '/wallet/v3/admin/company/view',
  summary: 'See the company’s settings (admin)',
  tag: 'admin',
  description: (config) =>
    'The company’s settings (API contract 6 and 7) as `npm run company:update` prints them, in the shape ' +
    'company/update takes: the name, require_verified_phone, the countries SMS may go to, the code texts by ' +
    'language with the default language, the app hash and the WebOTP domain, the security warnings by warning (and ' +
    'the phone change’s as phone_change_texts), and each ' +
    'limit in force (the company’s own or the configured default, marked which). With each text’s size in SMS as ' +
    'sent (sms_sizes, phone_change_sizes), warnings worth a look, and the rules company/update applies (rules). ' +
    `As stored now: other functions keep a company for up to ${duration(config.companyCacheSeconds)}. Not the status: a ` +
    'disabled company answers 404 code 3 to every call. Never a secret. Recorded as company_view. ' +
    staffSessionRule(config, 'the admin role'),
  auth: 'required',
  body: companyViewBody,
  result: companyViewResult,
  errors: ['FORBIDDEN', 'PHONE_NOT_VERIFIED'],
  examples: {
    request: { reason: 'ticket 9120: check the Hindi text' },
    result: sampleCompanySettings,
  },
  // The company's settings (API contract 3.14, 6 and 7), admin only: the view reads the company (as
  // every function does) and writes its record in the company's log; the update writes the settings
  // company:update writes, never the status, in one transaction with its record.
  grants: {
    table: [keepAnswers, readCompanyAndSession, ...appendStaffRecord, { actions: ['GetItem'], keys: ['user'] }, recordSessionUse],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
