import type { App } from '../app-context.js';
import type { Company } from '../companies/companies.js';
import { type WarningKey, warningTextsOf } from '../companies/security-warning-texts.js';
import { templateLanguage } from '../sms/otp-sms-text.js';
import type { TextDispatch } from '../sms/text-dispatch.js';
import { sendWarning, type WarningTarget, warningKeyOf } from './warning-sms.js';

// The security warning of a user's own request (API contract 3.15): a change that waits, a device
// bound by an OTP login. Its language is chosen as the phone change's warning and a code's text are
// (lib/account/phone-change-notice.ts, lib/sms/otp-sms-text.ts): so this module holds negotiator.

/**
 * The language of the company's texts of a warning that the request's Accept-Language matches best,
 * else the company's default language; undefined: the built-in English.
 */
export function warningLanguage(
  company: Pick<Company, 'sms_text'>,
  warning: WarningKey,
  acceptLanguage: string | undefined,
): string | undefined {
  const texts = warningTextsOf(company.sms_text, warning);
  return texts && templateLanguage({ templates: texts, default_language: company.sms_text?.default_language }, acceptLanguage);
}

/**
 * Sends a security warning to a number in the language of the request (warningLanguage). The change
 * it tells of has committed: a warning that cannot leave is logged and counted, never thrown.
 */
export function warnNumber(app: App, texts: TextDispatch, target: WarningTarget): Promise<void> {
  const language = warningLanguage(target.company, warningKeyOf(target.warning), target.origin.acceptLanguage);
  return sendWarning(app, texts, target, language);
}
