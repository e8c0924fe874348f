import * as z from 'zod/mini';
import { amountField, currencyField } from '../authorizations/payment-fields.js';
import type { Call, Principal } from '../call.js';
import { COMPANY_NAME_MAX_LENGTH } from '../companies/companies.js';
import { COMPANY_LIMITS, type CompanyLimitAttribute } from '../companies/company-limits.js';
import { WARNING_KEYS } from '../companies/security-warning-texts.js';
import { smsCountryCode, unknownSmsCountries } from '../companies/sms-countries.js';
import { WEBAUTHN_ORIGINS_MAX, webauthnProblems } from '../passkeys/webauthn-settings.js';
import { staffReason } from '../staff/staff-gate.js';

// POST /wallet/v3/admin/company/update (API contract 3.14, 6 and 7): the settings `npm run
// company:update` changes, with its rules (lib/companies/), but the status: an admin who disabled
// their own company would lock every one of its staff and users out, and only an operator can
// enable it again. A removal is a null (or "") inside an object: a top-level null or "" counts as
// absent (contract 1), so the SMS text's settings travel in `sms_text`, where null removes one.

const ALPHA_2 = /^\s*[A-Za-z]{2}\s*$/;
const COUNTRIES_MESSAGE = 'takes ISO 3166 alpha-2 codes with phone numbers (such as ["IN", "US"]) or "all"';

const described = <Schema extends z.ZodMiniType>(schema: Schema, description: string) => schema.check(z.meta({ description }));

/** Texts by BCP 47 language tag (checked by the rules of lib/sms/sms-text.ts); null or "" removes a language's. */
const textsByLanguage = (description: string) => described(z.record(z.string(), z.nullable(z.string())), description);

/** A company's own limit, or null for the configured default. */
const limit = (attribute: CompanyLimitAttribute) => {
  const { min } = COMPANY_LIMITS[attribute];
  const message = `must be a whole number of at least ${min}${min === 0 ? ' (0: no limit)' : ''}, or null for the default`;
  return z.optional(z.nullable(z.int({ error: message }).check(z.gte(min, message))));
};

const countries = () =>
  described(
    z.union(
      [
        z.literal('all'),
        z.array(z.string().check(z.regex(ALPHA_2, 'must be an ISO 3166 alpha-2 code'))).check(z.minLength(1), z.maxLength(300)),
      ],
      { error: COUNTRIES_MESSAGE },
    ),
    'ISO 3166 alpha-2 codes SMS may go to, or "all" for every country',
  );

export const companyUpdateBody = z.lazy(() =>
  z
    .object({
      name: z.optional(
        described(
          z.string().check(z.trim(), z.minLength(1), z.maxLength(COMPANY_NAME_MAX_LENGTH)),
          'The company’s name ({brand}): every code and warning text must still fit 2 SMS with it',
        ),
      ),
      require_verified_phone: z.optional(
        described(z.union([z.literal(0), z.literal(1)], { error: 'must be 0 or 1' }), '1: customers prove the phone to register'),
      ),
      sms_countries: z.optional(countries()),
      require_dpop: z.optional(
        described(
          z.union([z.literal(0), z.literal(1)], { error: 'must be 0 or 1' }),
          '1: every login must carry a DPoP proof (API contract 3.17); a security setting, applied when another admin approves it',
        ),
      ),
      sms_payment_limit: z.optional(
        described(
          z.union([z.literal('none'), z.record(currencyField, amountField)]),
          'What sessions begun by an SMS code may approve per currency over 24 h (API contract 3.15), such as {"EUR": "100.00"}; ' +
            '"none": nothing. A security setting, applied when another admin approves it',
        ),
      ),
      sms_text: z.optional(
        z.object({
          templates: z.optional(textsByLanguage('The code text by language: {code} (required), {brand}, {minutes}; null removes one')),
          default_language: z.optional(
            described(z.nullable(z.string()), 'A language with a template, sent when Accept-Language matches none; null removes it'),
          ),
          app_hash: z.optional(described(z.nullable(z.string()), 'The Android SMS Retriever app hash (11 characters); null removes it')),
          webotp_domain: z.optional(described(z.nullable(z.string()), 'The WebOTP domain (such as wallet.example.com); null removes it')),
        }),
      ),
      phone_change_texts: z.optional(
        textsByLanguage(
          'The warning the old number gets on a phone change (waiting or done), by language: {brand}, no {code}; null ' +
            'removes one. The same texts as warning_texts.phone',
        ),
      ),
      warning_texts: z.optional(
        described(
          z.strictObject(
            Object.fromEntries(
              WARNING_KEYS.map((warning) => [
                warning,
                z.optional(textsByLanguage(`The ${warning} warning by language: {brand}, no {code}; null removes one`)),
              ]),
            ) as Record<(typeof WARNING_KEYS)[number], z.ZodMiniOptional<ReturnType<typeof textsByLanguage>>>,
          ),
          'The security warnings’ SMS by warning (a held change’s kind, or new_device: a device bound by an OTP ' +
            'login), then by language: {brand}, no {code} or run of 4 digits; null removes one',
        ),
      ),
      limits: z.optional(
        z.object({
          sms_per_hour: limit('sms_per_hour'),
          sms_per_prefix_per_hour: limit('sms_per_prefix_per_hour'),
          sends_per_address_per_hour: limit('sends_per_address_per_hour'),
          verifies_per_address: limit('verifies_per_address'),
        }),
      ),
      webauthn: z.optional(
        described(
          z.strictObject({
            rp_id: described(
              z.string().check(z.maxLength(253)),
              'The relying party id: a domain the company’s apps and pages are associated with',
            ),
            origins: described(
              z.array(z.string().check(z.maxLength(200))).check(z.maxLength(WEBAUTHN_ORIGINS_MAX)),
              'Web origins (https://host[:port]) and Android origins (android:apk-key-hash:<base64url SHA-256 of the signing certificate>)',
            ),
          }),
          'Passkeys (API contract 3.16): a security setting, applied when another admin approves it (company/approve)',
        ),
      ),
      reason: staffReason(),
    })
    .check(
      z.superRefine((body, context) => {
        if (!body.webauthn) return;
        for (const { field, detail } of webauthnProblems(body.webauthn))
          context.addIssue({ code: 'custom', path: field.split('.'), message: detail });
      }),
      // The countries the numbering plan knows, loaded on the first list checked (as a phone check does).
      z.superRefine(
        async (body, context) => {
          // Only the codes of the right form: the others are refused by the array's own check.
          const listed: unknown[] = Array.isArray(body.sms_countries) ? body.sms_countries : [];
          const codes = listed.filter((code): code is string => typeof code === 'string' && ALPHA_2.test(code)).map(smsCountryCode);
          const unknown = await unknownSmsCountries(codes);
          if (unknown.length) {
            context.addIssue({ code: 'custom', path: ['sms_countries'], message: `${COUNTRIES_MESSAGE}; not ${unknown.join(', ')}` });
          }
        },
        { when: ({ value }) => Array.isArray((value as { sms_countries?: unknown } | null)?.sms_countries) },
      ),
    ),
);

export type CompanyUpdateInput = z.output<typeof companyUpdateBody>;
export type CompanyUpdateCall = Call<CompanyUpdateInput, Record<string, never>, Principal>;
