import Negotiator from 'negotiator';
import type { SmsTextSettings } from '../store/company-store.js';
import { BUILT_IN_TEMPLATE, smsMessage } from './sms-text.js';

// The SMS that carries a code (API contract 7): the company's template in the caller's language,
// else in the company's default language, else the built-in English. Only login_phone sends, so
// only its bundle holds negotiator.

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

/** The text of the SMS that carries a code. */
export function otpSmsText(company: { name: string; sms_text?: SmsTextSettings | undefined }, sms: OtpSms): string {
  const settings = company.sms_text;
  const language = templateLanguage(settings, sms.acceptLanguage);
  const template = language ? settings!.templates[language]! : BUILT_IN_TEMPLATE;
  return smsMessage(template, { code: sms.code, brand: company.name, ttlSeconds: sms.ttlSeconds }, settings);
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
