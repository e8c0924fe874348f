import * as z from 'zod/mini';
import { WARNING_KEYS } from '../companies/security-warning-texts.js';

// What the back office shows of its company's settings (API contract 3.14, 6 and 7): what
// `npm run company:update` prints, in the shape company/update takes, with each text's size in SMS
// and the rules a page needs to check a text before it sends it. A company holds no secret.

const described = <Schema extends z.ZodMiniType>(schema: Schema, description: string) => schema.check(z.meta({ description }));

/** How many SMS one message takes, as a phone counts it (lib/sms/sms-segments.ts). */
export const smsSizeSchema = () =>
  z.object({
    segments: described(z.int(), 'SMS the message takes (at most max_sms_segments is stored)'),
    encoding: described(z.enum(['GSM-7', 'UCS-2']), 'UCS-2 as soon as one character is outside the GSM 7-bit alphabet'),
    units: described(z.int(), 'GSM-7 septets or UCS-2 (UTF-16) units of the whole message'),
  });

const sizesByLanguage = (description: string) => described(z.record(z.string(), smsSizeSchema()), description);

/** One value for every security warning (lib/companies/security-warning-texts.ts). */
const byWarning = <Schema extends z.ZodMiniType>(value: () => Schema, description: string) =>
  described(
    z.object(Object.fromEntries(WARNING_KEYS.map((warning) => [warning, value()])) as Record<(typeof WARNING_KEYS)[number], Schema>),
    description,
  );

/** A limit in force: the company's own value or the configured default. */
const limitInForce = () =>
  z.object({
    value: described(z.int(), 'The limit in force'),
    default: described(z.int(), 'The configured default, in force while the company sets none'),
    source: described(z.enum(['company', 'default']), 'company: the company’s own value; default: the configured one'),
    min: described(z.int(), 'The least value company/update takes (0: no limit)'),
  });

export const companySettingsSchema = () =>
  z.object({
    company_id: z.string(),
    name: described(z.string(), 'The company’s name: {brand} in its texts'),
    require_verified_phone: described(
      z.union([z.literal(0), z.literal(1)]),
      '1: a customer registering themselves must prove the phone first (contract 6)',
    ),
    sms_countries: described(
      z.union([z.literal('all'), z.array(z.string())]),
      'ISO 3166 alpha-2 codes SMS may go to, or "all" (every country: the favourite target of SMS pumping)',
    ),
    sms_text: z.object({
      templates: described(z.record(z.string(), z.string()), 'The code text by BCP 47 language tag; none: the built-in English text'),
      default_language: described(z.nullable(z.string()), 'The template sent when Accept-Language matches none; null: the built-in text'),
      app_hash: described(z.nullable(z.string()), 'The Android SMS Retriever app hash, the last line but the WebOTP one'),
      webotp_domain: described(z.nullable(z.string()), 'The WebOTP domain: the last line reads @<domain> #<code>'),
    }),
    require_dpop: described(z.union([z.literal(0), z.literal(1)]), '1: every login must carry a DPoP proof (contract 3.17)'),
    sms_payment_limit: described(
      z.record(z.string(), z.string()),
      'What sessions begun by an SMS code may approve per currency over 24 h (contract 3.15); none listed: nothing',
    ),
    webauthn: described(
      z.nullable(z.object({ rp_id: z.string(), origins: z.array(z.string()) })),
      'Passkeys (contract 3.16): the relying party id and the origins allowed; null: passkeys are off',
    ),
    phone_change_texts: described(
      z.record(z.string(), z.string()),
      'The warning the old number gets when a move of the account waits or is done, by language; none: the built-in ' +
        'English texts. The same as warning_texts.phone',
    ),
    warning_texts: byWarning(
      () => z.record(z.string(), z.string()),
      'Each security warning’s SMS by language: a held change’s kind (phone, login_pin, transaction_pin, device_remove, ' +
        'delete, profile, export) or new_device (a device bound by an OTP login); none: the built-in English text',
    ),
    limits: z.object({
      sms_per_hour: limitInForce(),
      sms_per_prefix_per_hour: limitInForce(),
      sends_per_address_per_hour: limitInForce(),
      verifies_per_address: limitInForce(),
    }),
    sms_sizes: sizesByLanguage(
      'Each code text as sent with a 6-digit code, the name, the minutes and the autofill lines, by language; "built-in": ' +
        'the English text, sent while there is no default language',
    ),
    phone_change_sizes: sizesByLanguage('Each phone-change warning as sent with the name, by language'),
    warning_sizes: byWarning(
      () => z.record(z.string(), smsSizeSchema()),
      'Each security warning as sent with the name, by warning and then by language',
    ),
    warnings: described(
      z.array(z.string()),
      'What deserves a look: SMS to every country, a text over the limit stored before the checks (sent shortened), an app hash on a text of 2 SMS',
    ),
    updated_at: described(z.nullable(z.int()), 'UNIX seconds of the last change (null: never changed)'),
  });

const segmentUnits = () => z.object({ single: z.int(), part: z.int() });

/** The rules company/update applies, for a page that checks a text as it is typed. */
export const companySettingsRulesSchema = () =>
  z.object({
    max_sms_segments: described(z.int(), 'A text whose message needs more SMS is refused: a message is never cut'),
    sms_segment_units: described(
      z.object({ 'GSM-7': segmentUnits(), 'UCS-2': segmentUnits() }),
      'Units of one SMS alone, and of each part of a longer message',
    ),
    template_placeholders: described(z.array(z.string()), 'What a code text may hold; {code} it must'),
    phone_change_placeholders: described(z.array(z.string()), 'What a warning (of any kind) may hold; never {code} or 4 digits in a run'),
    sized_with: described(
      z.object({ code_digits: z.int(), minutes: z.int() }),
      'The values a code text is sized with: the longest code and the code lifetime in minutes',
    ),
    name_max_length: z.int(),
    app_hash_length: z.int(),
    built_in_template: described(z.string(), 'The English code text of a company with none in the caller’s or its default language'),
    built_in_phone_change_text: described(z.string(), 'The English warning to the old number once the account moved'),
    warning_kinds: described(z.array(z.enum(WARNING_KEYS as [string, ...string[]])), 'The warnings warning_texts holds'),
    built_in_warning_texts: byWarning(
      () => z.string(),
      'The English warning of a company with none in the caller’s or its default language (phone: while a move waits)',
    ),
    in_force_within_seconds: described(z.int(), 'Every function sees a change within this time (its company cache)'),
  });

export const companyViewResult = z.lazy(() => z.object({ company: companySettingsSchema(), rules: companySettingsRulesSchema() }));

export type CompanySettingsView = z.output<ReturnType<typeof companySettingsSchema>>;
export type CompanySettingsRules = z.output<ReturnType<typeof companySettingsRulesSchema>>;
export type CompanyViewResult = z.output<typeof companyViewResult>;
