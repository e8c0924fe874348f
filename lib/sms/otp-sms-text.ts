import Negotiator from 'negotiator';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { CompanyRecord, SmsTextSettings } from '../store/company-store.js';
import { smsSize } from './sms-segments.js';
import {
  BUILT_IN_TEMPLATE,
  BUILT_IN_TEMPLATE_WITHOUT_BRAND,
  fitsSms,
  fittingBrand,
  MAX_SMS_SEGMENTS,
  type MessageValues,
  smsMessage,
} from './sms-text.js';

// The SMS that carries a code (API contract 7): the company's template in the caller's language,
// else in the company's default language, else the built-in English. Only login_phone sends a
// code; the security warnings of a user's request are picked by templateLanguage too (phone-change-notice.ts,
// change-warning.ts): only their bundles hold negotiator.

/**
 * Negotiation costs templates x header entries: a 10 KB header of 2,500 entries against 50
 * templates took 12 ms, its first 512 characters under 1 ms. Browsers send a few entries.
 */
const ACCEPT_LANGUAGE_READ = 512;

export interface OtpSms {
  code: string;
  /** The code's lifetime, shown in whole minutes. */
  ttlSeconds: number;
  /** The request's Accept-Language header, as sent. */
  acceptLanguage: string | undefined;
}

/** Where a send reports a text it had to shorten. */
export interface SmsTextReporting {
  logger: Pick<Logger, 'warn'>;
  metrics: Pick<Metrics, 'count'>;
}

/** How a text too long for MAX_SMS_SEGMENTS was made to fit. */
interface FittedText {
  text: string;
  /** The template sent: a language, or "built-in". */
  template: string;
  brand: 'whole' | 'shortened' | 'left_out';
  autofillLines: boolean;
}

/**
 * The text of the SMS that carries a code, in at most MAX_SMS_SEGMENTS. The company's settings
 * are sized when stored; a text over the limit all the same (settings stored before that check,
 * a longer code lifetime since) is shortened, reported, and sent: a login never fails for it.
 */
export function otpSmsText(
  company: Pick<CompanyRecord, 'company_id' | 'name' | 'sms_text'>,
  sms: OtpSms,
  reporting: SmsTextReporting,
): string {
  const settings = company.sms_text;
  const language = templateLanguage(settings, sms.acceptLanguage);
  const template = language ? settings!.templates[language]! : BUILT_IN_TEMPLATE;
  const message = { code: sms.code, brand: company.name, ttlSeconds: sms.ttlSeconds };
  const text = smsMessage(template, message, settings);
  const { segments } = smsSize(text);
  if (segments <= MAX_SMS_SEGMENTS) return text;

  const fitted = fittedText({ language: language ?? 'built-in', template }, message, settings);
  reporting.logger.warn(
    `a code text would need more than ${MAX_SMS_SEGMENTS} SMS; sent shortened (rename the company or shorten its template)`,
    {
      company_id: company.company_id,
      language: language ?? 'built-in',
      segments,
      sent_template: fitted.template,
      brand: fitted.brand,
      autofill_lines: fitted.autofillLines,
    },
  );
  reporting.metrics.count('sms_text_shortened');
  return fitted.text;
}

/**
 * The first that fits: the caller's language with the name shortened (the language matters more
 * than the whole name), the built-in English with the name whole or shortened, the English without
 * the name, and last without the autofill lines, which always fits: the code itself is never left out.
 */
function fittedText(
  chosen: { language: string; template: string },
  message: MessageValues,
  settings: SmsTextSettings | undefined,
): FittedText {
  const candidates = chosen.template === BUILT_IN_TEMPLATE ? [chosen] : [chosen, { language: 'built-in', template: BUILT_IN_TEMPLATE }];
  for (const { language, template } of candidates) {
    const brand = fittingBrand(template, message, settings);
    if (brand === undefined) continue;
    const text = smsMessage(template, { ...message, brand }, settings);
    return { text, template: language, brand: brand === message.brand ? 'whole' : 'shortened', autofillLines: true };
  }
  const autofillLines = fitsSms(BUILT_IN_TEMPLATE_WITHOUT_BRAND, message, settings);
  const text = smsMessage(BUILT_IN_TEMPLATE_WITHOUT_BRAND, message, autofillLines ? settings : undefined);
  return { text, template: 'built-in', brand: 'left_out', autofillLines };
}

/**
 * The company's template language for a request: the best match of Accept-Language (q-values
 * first, then an exact tag before a shared primary language: "es-MX" takes es-MX before es,
 * "hi-IN" takes hi, "es" takes es-MX), else the company's default; undefined: the built-in text.
 */
export function templateLanguage(settings: SmsTextSettings | undefined, acceptLanguage: string | undefined): string | undefined {
  const languages = Object.keys(settings?.templates ?? {});
  if (languages.length === 0) return undefined;
  const fallback = settings?.default_language && languages.includes(settings.default_language) ? settings.default_language : undefined;
  // The default offered first: "*" (any language) and ties take it.
  const offered = fallback ? [fallback, ...languages.filter((language) => language !== fallback)] : languages;
  const [best] = acceptLanguage
    ? new Negotiator({ headers: { 'accept-language': acceptLanguage.slice(0, ACCEPT_LANGUAGE_READ) } }).languages(offered)
    : [];
  return best ?? fallback;
}
