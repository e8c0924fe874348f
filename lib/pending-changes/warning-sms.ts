import type { App } from '../app-context.js';
import { epochSeconds, HOUR_SECONDS } from '../clock.js';
import type { Company } from '../companies/companies.js';
import { defaultWarningLanguage, type WarningKey, warningIn } from '../companies/security-warning-texts.js';
import { allowedSmsDestination } from '../companies/sms-destinations.js';
import { type AuditEventName, audit, phoneRef, type RequestOrigin } from '../observability/audit.js';
import type { MetricName } from '../observability/metrics.js';
import type { TextDispatch } from '../sms/text-dispatch.js';
import type { PendingChangeKind } from '../store/pending-change-store.js';

// The SMS that tells the user's number of a security change (API contract 3.15): a change that
// waits and how to stop it, or a device bound by an OTP login. It goes by the path login codes take
// (direct, or the SMS queue) and carries no code and no digit of a new number. Whoever holds the
// SIM reads it too: what protects the owner is the app's notice and cancel, which this points to.
// The language is chosen by the caller: change-warning.ts negotiates the request's Accept-Language
// (and so holds negotiator); a warning on a staff request takes the company's default language.

/** A queued warning still unsent after this long is dropped: by then it tells nothing new. */
const WARNING_LIFETIME_SECONDS = HOUR_SECONDS;

export type SecurityWarning = { kind: 'held'; change: PendingChangeKind } | { kind: 'new_device' };

export interface WarningTarget extends SecurityTextTarget {
  warning: SecurityWarning;
}

/** Which of the company's warning texts a warning takes. */
export const warningKeyOf = (warning: SecurityWarning): WarningKey => (warning.kind === 'held' ? warning.change : 'new_device');

/** Who a security text goes to, and for whose account. */
export interface SecurityTextTarget {
  company: Company;
  origin: RequestOrigin;
  userId: string;
  phoneE164: string;
}

/** A security text's words, and how its sending is recorded: its audit event and fields, and what a failure logs and counts. */
export interface SecurityText {
  message: { text: string; language: string };
  event: Extract<AuditEventName, 'security_warning' | 'phone_change_notice'>;
  fields?: Record<string, string>;
  failure: { log: string; metric: Extract<MetricName, 'security_warnings_failed' | 'phone_change_notices_failed'> };
}

/**
 * Sends a text that tells a number of a security change, by the path login codes take. The change
 * has committed: a text that cannot leave is logged and counted, never thrown.
 */
export async function sendSecurityText(
  app: App,
  texts: TextDispatch,
  { company, origin, userId, phoneE164 }: SecurityTextTarget,
  { message, event, fields = {}, failure }: SecurityText,
): Promise<void> {
  const companyId = company.company_id;
  let ref: string | undefined;
  try {
    ref = await phoneRef(app.keys, phoneE164);
    const destination = await allowedSmsDestination(company, phoneE164);
    await texts.send({
      companyId,
      phoneNumber: phoneE164,
      text: message.text,
      country: destination.country ?? 'ZZ',
      expiresAt: epochSeconds(app.clock) + WARNING_LIFETIME_SECONDS,
    });
    audit(app, origin, event, {
      company_id: companyId,
      user_id: userId,
      phone_ref: ref,
      outcome: app.config.sms.delivery === 'queue' ? 'queued' : 'sent',
      ...fields,
      language: message.language,
    });
  } catch (error) {
    app.logger.warn(failure.log, { company_id: companyId, user_id: userId, phone_ref: ref, error: (error as Error).name });
    audit(app, origin, event, { company_id: companyId, user_id: userId, phone_ref: ref, outcome: 'failed' });
    app.metrics.count(failure.metric);
  }
}

/**
 * Sends a security warning to a number, in `language` (one of the company's texts of the warning;
 * undefined: the built-in English).
 */
export function sendWarning(app: App, texts: TextDispatch, { warning, ...target }: WarningTarget, language: string | undefined) {
  return sendSecurityText(app, texts, target, {
    message: warningIn(target.company, warningKeyOf(warning), language),
    event: 'security_warning',
    fields: { warning: warning.kind === 'held' ? `held_${warning.change}` : warning.kind },
    failure: { log: 'the number was not told of a security change', metric: 'security_warnings_failed' },
  });
}

/**
 * The warning of a change staff made for the user (a recovery's approval): the request's language
 * is the staff member's, not the user's, so the company's default language, else the built-in English.
 */
export function warnNumberInDefaultLanguage(app: App, texts: TextDispatch, target: WarningTarget): Promise<void> {
  return sendWarning(app, texts, target, defaultWarningLanguage(target.company.sms_text, warningKeyOf(target.warning)));
}
