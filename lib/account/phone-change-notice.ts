import type { App } from '../app-context.js';
import { epochSeconds, HOUR_SECONDS } from '../clock.js';
import type { Company } from '../companies/companies.js';
import { audit, phoneRef, type RequestOrigin } from '../observability/audit.js';
import { allowedSmsDestination } from '../otp/sms-destinations.js';
import type { TextDispatch } from '../sms/text-dispatch.js';

// The SIM-swap warning (API contract 3.11): the OLD number is told that the account moved, by the
// path login codes take (direct or the SMS queue, lib/sms). It carries no code and no digits of
// the new number. The company's SMS templates are code templates ({code} is required): this text
// is the built-in English one, with the company's name.

/** The warning's text: no code, nothing to act on but to call the company. */
export function phoneChangeNoticeText(company: Pick<Company, 'name'>): string {
  return `Your ${company.name} account was moved to another phone number. If you did not do this, contact ${company.name} at once.`;
}

/** A queued warning still unsent after this long is dropped: by then it tells nothing new. */
const NOTICE_LIFETIME_SECONDS = HOUR_SECONDS;

/**
 * Sends the warning to the old number. The change has committed: a warning that cannot leave is
 * logged and counted (phone_change_notices_failed), never thrown.
 */
export async function warnOldNumber(
  app: App,
  texts: TextDispatch,
  { company, origin, userId, oldPhoneE164 }: { company: Company; origin: RequestOrigin; userId: string; oldPhoneE164: string },
): Promise<void> {
  const companyId = company.company_id;
  let ref: string | undefined;
  try {
    ref = await phoneRef(app.keys, oldPhoneE164);
    const destination = await allowedSmsDestination(company, oldPhoneE164);
    await texts.send({
      companyId,
      phoneNumber: oldPhoneE164,
      text: phoneChangeNoticeText(company),
      country: destination.country ?? 'ZZ',
      expiresAt: epochSeconds(app.clock) + NOTICE_LIFETIME_SECONDS,
    });
    const outcome = app.config.sms.delivery === 'queue' ? 'queued' : 'sent';
    audit(app, origin, 'phone_change_notice', { company_id: companyId, user_id: userId, phone_ref: ref, outcome });
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
