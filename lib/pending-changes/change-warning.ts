import type { App } from '../app-context.js';
import { epochSeconds, HOUR_SECONDS } from '../clock.js';
import type { Company } from '../companies/companies.js';
import { phoneChangeMessage } from '../companies/phone-change-texts.js';
import { allowedSmsDestination } from '../companies/sms-destinations.js';
import { audit, phoneRef, type RequestOrigin } from '../observability/audit.js';
import type { TextDispatch } from '../sms/text-dispatch.js';
import type { PendingChangeKind } from '../store/pending-change-store.js';

// The SMS that tells the user's number of a security change (API contract 3.15): a change that
// waits and how to stop it, or a device bound by an OTP login. It goes by the path login codes take
// (direct, or the SMS queue) and carries no code and no digit of a new number. Whoever holds the
// SIM reads it too: what protects the owner is the app's notice and cancel, which this points to.

/** The built-in English texts of a change that waits, by kind; {brand} is the company's name. */
export const BUILT_IN_HELD_CHANGE_TEXTS: Record<PendingChangeKind, string> = {
  phone:
    'A move of your {brand} account to another phone number was asked for. If this was not you, open the {brand} app to cancel it, or contact {brand} at once.',
  login_pin:
    'A new login PIN for your {brand} account was asked for. It takes effect in a day. If this was not you, open the {brand} app to cancel it.',
  transaction_pin:
    'A new payment PIN for your {brand} account was asked for. It takes effect in a day. If this was not you, open the {brand} app to cancel it.',
  device_remove:
    'Removing a trusted device from your {brand} account was asked for. If this was not you, open the {brand} app on that device to cancel it.',
  delete:
    'Deleting your {brand} account was asked for. If this was not you, open the {brand} app to cancel it, or contact {brand} at once.',
  profile:
    'A change of the name, email or birth date of your {brand} account was asked for. If this was not you, open the {brand} app to cancel it.',
  export: 'A copy of your {brand} account’s data was asked for. If this was not you, open the {brand} app to cancel it.',
};

/** The built-in English text of a device bound by an OTP login (second reading of 3.15). */
export const BUILT_IN_NEW_DEVICE_TEXT =
  'A new device signed in to your {brand} account with a code. If this was not you, open the {brand} app on your phone and choose "Not me".';

/** A queued warning still unsent after this long is dropped: by then it tells nothing new. */
const WARNING_LIFETIME_SECONDS = HOUR_SECONDS;

export type SecurityWarning = { kind: 'held'; change: PendingChangeKind } | { kind: 'new_device' };

function warningText(company: Pick<Company, 'name'>, warning: SecurityWarning): string {
  const text = warning.kind === 'held' ? BUILT_IN_HELD_CHANGE_TEXTS[warning.change] : BUILT_IN_NEW_DEVICE_TEXT;
  return phoneChangeMessage(text, company.name);
}

/**
 * Sends a security warning to a number. The change it tells of has committed: a warning that cannot
 * leave is logged and counted (security_warnings_failed), never thrown.
 */
export async function warnNumber(
  app: App,
  texts: TextDispatch,
  {
    company,
    origin,
    userId,
    phoneE164,
    warning,
  }: { company: Company; origin: RequestOrigin; userId: string; phoneE164: string; warning: SecurityWarning },
): Promise<void> {
  const companyId = company.company_id;
  let ref: string | undefined;
  try {
    ref = await phoneRef(app.keys, phoneE164);
    const destination = await allowedSmsDestination(company, phoneE164);
    await texts.send({
      companyId,
      phoneNumber: phoneE164,
      text: warningText(company, warning),
      country: destination.country ?? 'ZZ',
      expiresAt: epochSeconds(app.clock) + WARNING_LIFETIME_SECONDS,
    });
    audit(app, origin, 'security_warning', {
      company_id: companyId,
      user_id: userId,
      phone_ref: ref,
      outcome: app.config.sms.delivery === 'queue' ? 'queued' : 'sent',
      warning: warning.kind === 'held' ? `held_${warning.change}` : warning.kind,
    });
  } catch (error) {
    app.logger.warn('the number was not told of a security change', {
      company_id: companyId,
      user_id: userId,
      phone_ref: ref,
      error: (error as Error).name,
    });
    audit(app, origin, 'security_warning', { company_id: companyId, user_id: userId, phone_ref: ref, outcome: 'failed' });
    app.metrics.count('security_warnings_failed');
  }
}
