import type { App } from '../app-context.js';
import { epochSeconds, HOUR_SECONDS } from '../clock.js';
import type { Company } from '../companies/companies.js';
import { BUILT_IN_PHONE_CHANGE_TEXT, warningIn, warningMessage } from '../companies/security-warning-texts.js';
import { allowedSmsDestination } from '../companies/sms-destinations.js';
import { audit, phoneRef, type RequestOrigin } from '../observability/audit.js';
import { warningLanguage } from '../pending-changes/change-warning.js';
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

/** A queued warning still unsent after this long is dropped: by then it tells nothing new. */
const NOTICE_LIFETIME_SECONDS = HOUR_SECONDS;

/**
 * Sends the warning to the old number that the account moved (a move that waits is told as every
 * held change is: lib/pending-changes/change-warning.ts). The change has committed: a warning that
 * cannot leave is logged and counted (phone_change_notices_failed), never thrown.
 */
export async function warnOldNumber(
  app: App,
  texts: TextDispatch,
  { company, origin, userId, oldPhoneE164 }: { company: Company; origin: RequestOrigin; userId: string; oldPhoneE164: string },
): Promise<void> {
  const companyId = company.company_id;
  let ref: string | undefined;
  const warning = phoneChangeWarning(company, origin.acceptLanguage);
  try {
    ref = await phoneRef(app.keys, oldPhoneE164);
    const destination = await allowedSmsDestination(company, oldPhoneE164);
    await texts.send({
      companyId,
      phoneNumber: oldPhoneE164,
      text: warning.text,
      country: destination.country ?? 'ZZ',
      expiresAt: epochSeconds(app.clock) + NOTICE_LIFETIME_SECONDS,
    });
    const outcome = app.config.sms.delivery === 'queue' ? 'queued' : 'sent';
    audit(app, origin, 'phone_change_notice', {
      company_id: companyId,
      user_id: userId,
      phone_ref: ref,
      outcome,
      language: warning.language,
    });
  } catch (error) {
    app.logger.warn('the old number was not told of the phone change', {
      company_id: companyId,
      user_id: userId,
      phone_ref: ref,
      error: (error as Error).name,
    });
    audit(app, origin, 'phone_change_notice', { company_id: companyId, user_id: userId, phone_ref: ref, outcome: 'failed' });
    app.metrics.count('phone_change_notices_failed');
  }
}
