import { createHmac } from 'node:crypto';
import type { ServerKeys } from '../secrets/server-keys.js';
import type { Logger } from './logger.js';
import type { LimitName, MetricName, Metrics } from './metrics.js';

// Security events (OWASP ASVS V16): one structured log line per outcome, with who, what, when
// (the line's timestamp) and where (source address, user agent), and never a secret. A phone
// appears only as phone_ref, a keyed hash that correlates a number's events without revealing it.

export type AuditEventName =
  | 'user_registered'
  | 'phone_reclaimed'
  | 'code_sent'
  | 'code_suppressed'
  | 'code_verified'
  | 'code_failed'
  | 'login'
  | 'logout'
  | 'sessions_revoked'
  | 'account_deleted'
  | 'account_restored'
  | 'account_erased'
  | 'token_refreshed'
  | 'token_refresh_refused'
  | 'device_bound'
  | 'device_removed'
  | 'pin_login_refused'
  | 'pin_verified'
  | 'pin_failed'
  | 'pin_locked'
  | 'pin_changed'
  | 'pin_reset'
  | 'phone_changed'
  | 'phone_change_refused'
  | 'phone_change_notice'
  | 'phone_change_pending'
  | 'phone_change_cancelled'
  | 'limited'
  | 'destination_refused'
  | 'transaction_authorized'
  | 'transaction_authorization_refused'
  | 'authorization_redeemed'
  | 'authorization_redeem_refused'
  | 'staff_action'
  | 'security_warning'
  | 'change_pending'
  | 'change_cancelled'
  | 'change_completed'
  | 'change_refused'
  | 'not_me'
  | 'device_approved'
  | 'step_up'
  | 'passkey_added'
  | 'passkey_removed'
  | 'passkey_refused';

/** Where a request came from, as API Gateway saw it (never from a header a client can set). */
export interface RequestOrigin {
  sourceIp: string;
  userAgent: string | undefined;
  /** The Accept-Language header: the language of the SMS a request sends (never logged). */
  acceptLanguage?: string | undefined;
}

interface AuditFields {
  company_id: string;
  user_id?: string | undefined;
  phone_ref?: string | undefined;
  outcome: string;
  /** For `limited`: which limit. */
  limit?: LimitName;
  [detail: string]: unknown;
}

/** A code_sent outcome's metric: queued in the request, then sent, failed or dropped dead by the queue's consumer. */
const CODE_SENT_METRICS: Record<string, MetricName> = {
  queued: 'sms_queued',
  sent: 'sms_sent',
  failed: 'sms_failed',
  expired_in_queue: 'sms_expired',
};

/** The metric each event counts, where it counts one. */
function metricOf(event: AuditEventName, outcome: string): MetricName | undefined {
  if (event === 'user_registered') return 'registrations';
  if (event === 'code_sent') return CODE_SENT_METRICS[outcome];
  if (event === 'code_verified') return 'codes_verified';
  if (event === 'code_failed') return 'codes_failed';
  if (event === 'limited') return 'limited';
  if (event === 'account_deleted') return 'deletions_requested';
  if (event === 'account_erased') return 'accounts_erased';
  return undefined;
}

interface Auditor {
  logger: Logger;
  metrics: Metrics;
}

export function audit({ logger, metrics }: Auditor, origin: RequestOrigin | undefined, event: AuditEventName, fields: AuditFields): void {
  logger.info('audit', {
    audit_event: event,
    ...fields,
    source_ip: origin?.sourceIp,
    user_agent: origin?.userAgent,
  });
  const metric = metricOf(event, fields.outcome);
  if (metric) metrics.count(metric, fields.limit);
}

/**
 * A phone number as logs carry it: "<key version>.<16 hex>", an HMAC under the server's
 * phone-ref key. Refs of one version correlate; after a rotation a container on the new
 * secret writes refs of the new version (docs/operations.md, "Rotate the secret").
 */
export async function phoneRef(keys: ServerKeys, phoneE164: string): Promise<string> {
  const { version, key } = await keys.current('phone-ref');
  return `${version}.${createHmac('sha256', key).update(phoneE164).digest('hex').slice(0, 16)}`;
}
