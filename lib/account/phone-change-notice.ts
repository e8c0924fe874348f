import type { App } from '../app-context.js';
import type { Company } from '../companies/companies.js';
import { BUILT_IN_PHONE_CHANGE_TEXT, warningIn, warningMessage } from '../companies/security-warning-texts.js';
import type { RequestOrigin } from '../observability/audit.js';
import { warningLanguage } from '../pending-changes/change-warning.js';
import { sendSecurityText } from '../pending-changes/warning-sms.js';
import type { TextDispatch } from '../sms/text-dispatch.js';

// The SIM-swap warning (API contract 3.11): the OLD number is told that the account moved, by the
// path login codes take (direct or the SMS queue, lib/sms). It carries no code and no digits of
// the new number. A company's code templates need {code}, so its warning texts are its own: those
// of the `phone` warning (lib/companies/security-warning-texts.ts, also sent while a move waits),
// chosen by language as login_phone chooses a template.

/** The built-in English warning: no code, nothing to act on but to call the company. */
export function phoneChangeNoticeText(company: Pick<Company, 'name'>): string {
  return warningMessage(BUILT_IN_PHONE_CHANGE_TEXT, company.name);
}

/**
 * The warning in the caller's language among the company's warning texts, else in the company's
 * default language, else the built-in English: the rule of a code's text (templateLanguage).
 */
export function phoneChangeWarning(
  company: Pick<Company, 'name' | 'sms_text'>,
  acceptLanguage: string | undefined,
): { text: string; language: string } {
  return warningIn(company, 'phone', warningLanguage(company, 'phone', acceptLanguage), BUILT_IN_PHONE_CHANGE_TEXT);
}

/**
 * Sends the warning to the old number that the account moved (a move that waits is told as every
 * held change is: lib/pending-changes/change-warning.ts).
 */
export function warnOldNumber(
  app: App,
  texts: TextDispatch,
  { company, origin, userId, oldPhoneE164 }: { company: Company; origin: RequestOrigin; userId: string; oldPhoneE164: string },
): Promise<void> {
  return sendSecurityText(
    app,
    texts,
    { company, origin, userId, phoneE164: oldPhoneE164 },
    {
      message: phoneChangeWarning(company, origin.acceptLanguage),
      event: 'phone_change_notice',
      failure: { log: 'the old number was not told of the phone change', metric: 'phone_change_notices_failed' },
    },
  );
}
