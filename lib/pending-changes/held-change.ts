import type { App } from '../app-context.js';
import type { Principal, RequestKey } from '../call.js';
import { epochSeconds } from '../clock.js';
import type { Company } from '../companies/companies.js';
import type { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import { audit, type RequestOrigin } from '../observability/audit.js';
import { accountBusy } from '../sessions/end-sessions.js';
import { needs } from '../sessions/session-strength.js';
import type { TextDispatch } from '../sms/text-dispatch.js';
import { noChangeFreeze } from '../store/change-freeze-store.js';
import {
  getPendingChange,
  isLive,
  type PendingChange,
  type PendingChangeKind,
  pendingChangePut,
  queryPendingChanges,
} from '../store/pending-change-store.js';
import { ConditionsFailed, type LabelledItem, writeTransaction } from '../store/transactions.js';
import { warnNumber } from './change-warning.js';
import type { HeldChangeResult } from './held-change-result.js';

// A change held for PHONE_CHANGE_HOLD_HOURS (API contract 3.15): asked for from a session an SMS
// code alone could have opened (registration, OTP login, a PIN login on a device on probation), a
// new PIN, a new number or the removal of a settled device does not commit at once. It waits, told
// to the user's list (notice 11; a phone change's notice 9) and by SMS to the number, and any session
// of the user may cancel it (change-cancel.ts). Each kind takes effect where it is next used: a PIN at
// its next check (lib/pins), a device removal at the device's next use or listing (lib/devices), a
// phone change at a login to the new number (lib/account). None is held while staff froze the user's
// changes (staff-freeze.ts): 403 code 5, needs strong.

/** What one kind of held change stores beyond what every kind holds. */
export type KindDetails<Kind extends PendingChangeKind> = Omit<
  Extract<PendingChange, { kind: Kind }>,
  keyof Omit<PendingChange, 'kind'> | 'kind'
>;

/** A held change to make: its kind's details, and what else its transaction writes or requires. */
export interface HeldChangeRequest<Kind extends PendingChangeKind> {
  kind: Kind;
  details: KindDetails<Kind>;
  /** The number the SMS warns (the user's own, never the new one). */
  warnPhoneE164: string;
  /** From effective_at, how long it may still take effect before it is void (a phone change: 7 days); none: no end. */
  completesWithinSeconds?: number;
  /** Items of the same transaction (a proof used up, a PIN's tries cleared), given the change and the one it replaces. */
  items?: (change: Extract<PendingChange, { kind: Kind }>, replaced: PendingChange | undefined) => LabelledItem<string>[];
  /** The refusal a failed condition of those items means (undefined: read again and retry). */
  refusal?: (labels: string[]) => AppError | undefined;
  /** Run before a refusal is thrown, and when a retry finds its own change made (a right PIN's try given back). */
  onRefused?: () => Promise<void>;
  /** The user's pending changes as the caller read them (strongly consistent): the first round needs no read of its own. */
  known?: PendingChange[];
  /** The notice it is told with; security change pending (11) unless said. */
  notice?: SecurityEvent;
  message: string;
}

/** Who asks, for whom, from where. */
export interface HeldChangeCall extends RequestKey {
  principal: Principal;
  company: Company;
  origin: RequestOrigin;
}

const MAX_ROUNDS = 5;

const answerOf = (change: Pick<PendingChange, 'change_id' | 'effective_at'>, message: string): HeldChangeResult => ({
  message,
  pending: 1,
  change_id: change.change_id,
  effective_at: change.effective_at,
});

/**
 * Holds a change: one transaction stores it (replacing the user's change of that kind, unless that
 * one was asked for by a stronger session: 403 code 5, needs strong), writes its notice and the
 * request's own items. Then the number is warned. A retry of the same request whose answer was
 * lost finds its own change and answers it again.
 */
export async function holdChange<Kind extends PendingChangeKind>(
  app: App,
  call: HeldChangeCall,
  texts: TextDispatch,
  request: HeldChangeRequest<Kind>,
): Promise<HeldChangeResult> {
  const { principal, company, origin, idempotencyRef } = call;
  const { companyId, userId } = principal;
  const acr = principal.session?.acr ?? 'sms';
  const refuse = async (error: AppError): Promise<never> => {
    await request.onRefused?.();
    audit(app, origin, 'change_refused', { company_id: companyId, user_id: userId, outcome: error.errorName, kind: request.kind });
    throw error;
  };
  for (let round = 1; ; round++) {
    // A caller that read the user's changes reads them again the same way (one Query) in a round that lost a race.
    const known = request.known && (round === 1 ? request.known : await queryPendingChanges(app.table, companyId, userId));
    const current = known
      ? (known.find((change) => change.kind === request.kind) as Extract<PendingChange, { kind: Kind }> | undefined)
      : await getPendingChange(app.table, companyId, userId, request.kind, true);
    const now = epochSeconds(app.clock);
    if (idempotencyRef && isLive(current, now) && current.requested_by_request === idempotencyRef) {
      // This very request made it and its answer was lost: the same answer, the number warned again.
      await request.onRefused?.();
      await warnNumber(app, texts, {
        company,
        origin,
        userId,
        phoneE164: request.warnPhoneE164,
        warning: { kind: 'held', change: request.kind },
      });
      return answerOf(current, request.message);
    }
    if (isLive(current, now) && current.acr === 'strong' && acr !== 'strong') {
      return refuse(needs('strong', `a ${request.kind} change asked for from a strong session waits: only a strong session replaces it`));
    }
    const effectiveAt = now + app.config.phoneChangeHoldHours * 3600;
    const change = {
      ...request.details,
      change_id: newId(),
      kind: request.kind,
      via: 'user',
      acr,
      created_at: now,
      effective_at: effectiveAt,
      ...(request.completesWithinSeconds !== undefined ? { expires_at: effectiveAt + request.completesWithinSeconds } : {}),
      requested_by_request: idempotencyRef,
      requested_by_session: principal.sessionId,
    } as Extract<PendingChange, { kind: Kind }>;
    const notice = securityNotificationWrites(app.table, companyId, userId, {
      event: request.notice ?? SecurityEvent.CHANGE_PENDING,
      nowMs: app.clock.now(),
    });
    const writes: LabelledItem<string>[] = [
      { label: 'pending', item: pendingChangePut(app.table, companyId, userId, change, current) },
      // Staff who stripped the owner's defences froze new held changes for a while (staff-freeze.ts).
      { label: 'frozen', item: noChangeFreeze(app.table, companyId, userId, now) },
      ...notice.map((item) => ({ label: 'notice', item })),
      ...(request.items?.(change, current) ?? []),
    ];
    try {
      await writeTransaction(app.table, writes);
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      if (error.labels.includes('frozen')) {
        return refuse(
          needs('strong', 'support acted on this account: for 72 hours a change waits for no one, only a strong session makes it'),
        );
      }
      const refusal = request.refusal?.(error.labels);
      if (refusal) return refuse(refusal);
      // Another request of the user's replaced the change meanwhile: read again.
      if (round >= MAX_ROUNDS) throw accountBusy();
      continue;
    }
    audit(app, origin, 'change_pending', {
      company_id: companyId,
      user_id: userId,
      outcome: 'pending',
      kind: request.kind,
      change_id: change.change_id,
      effective_at: effectiveAt,
    });
    await warnNumber(app, texts, {
      company,
      origin,
      userId,
      phoneE164: request.warnPhoneE164,
      warning: { kind: 'held', change: request.kind },
    });
    return answerOf(change, request.message);
  }
}
