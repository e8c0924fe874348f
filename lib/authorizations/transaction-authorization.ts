import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError, fieldError } from '../errors.js';
import { audit } from '../observability/audit.js';
import { stillWaits } from '../pending-changes/pending-change-list.js';
import { checkPinAndAudit } from '../pins/check-pin-and-audit.js';
import { heldResetVoidWrites, PIN_SETUP_DETAIL, withDuePinApplied } from '../pins/held-pins.js';
import { PinRefused } from '../pins/pin-attempts.js';
import { sessionPinTally } from '../pins/pin-tally.js';
import { hashToken, randomToken } from '../secrets/hashing.js';
import { needs } from '../sessions/session-strength.js';
import { attemptIdOf } from '../store/attempt-sets.js';
import { authorizationPut, referenceClaimPut } from '../store/authorization-store.js';
import { queryPendingChanges } from '../store/pending-change-store.js';
import { pinVersionCheck } from '../store/pin-store.js';
import { ConditionsFailed, type LabelledItem, writeTransaction } from '../store/transactions.js';
import { getUser } from '../store/user-store.js';
import { smsPaymentWrite } from './sms-payment-limit.js';
import type { TransactionAuthorizationCall } from './transaction-authorization-input.js';
import type { TransactionAuthorizationResult } from './transaction-authorization-result.js';

const MAX_ROUNDS = 3;

/**
 * The transaction PIN approves one exact payment (API contract 3.8, PSD2 dynamic linking): a
 * counted PIN check, the one login and change use (lib/pins/check-pin-and-audit.ts), then one
 * transaction that stores the authorization (its token only hashed, with the acr of the session
 * that approved it), claims the user's payment reference while it lives and clears the PIN's tally.
 * The payment service redeems it once (redeem-authorization.ts) and hears the acr.
 * An SMS-strength session (3.15, second reading) approves nothing while the user has a change that
 * waits, and only within the company's sms_payment_limit: else 403 code 5 with needs "strong"; its
 * wrong PINs count on a tally of their own. A right transaction PIN on a strong session voids a held
 * reset of it (the owner is present).
 */
export async function transactionAuthorization(
  app: App,
  { body: payment, principal, company, origin, idempotencyRef }: TransactionAuthorizationCall,
): Promise<TransactionAuthorizationResult> {
  const { companyId, userId } = principal;
  const acr = principal.session?.acr ?? 'sms';
  const [read, changes] = await Promise.all([
    getUser(app.table, companyId, userId, true),
    queryPendingChanges(app.table, companyId, userId),
  ]);
  if (!read) throw new AppError('UNAUTHORIZED', { detail: 'the token’s user is gone' });
  const refused = (outcome: string, details: Record<string, unknown> = {}) =>
    audit(app, origin, 'transaction_authorization_refused', { company_id: companyId, user_id: userId, outcome, acr, ...details });
  // A transaction PIN staff chose at registration approves nothing: the user sets their own first (contract 3.15).
  if (read.transaction_pin_to_set) {
    refused('pin_setup');
    throw needs('pin_setup', PIN_SETUP_DETAIL);
  }
  const now = epochSeconds(app.clock);
  if (acr !== 'strong' && changes.some((change) => stillWaits(change, now))) {
    refused('change_pending');
    throw needs(
      'strong',
      'a change of the account waits: approve payments from a strong session (a PIN login on a settled device) until it is done or cancelled',
    );
  }
  const { amount, currency, payee, reference } = payment;
  // An SMS-strength session's limit is checked before its PIN is: a payment it may not make costs no guess.
  const smsWindow = () =>
    acr === 'strong' ? Promise.resolve(undefined) : smsPaymentWrite(app, company, { companyId, userId }, { amount, currency });
  let window = await smsWindow().catch((error: unknown) => {
    refused('sms_payment_limit', { currency });
    throw error;
  });
  const user = await withDuePinApplied(app, origin, read, changes, 'transaction');
  const pin = {
    companyId,
    userId,
    pinType: 'transaction' as const,
    attemptId: attemptIdOf(idempotencyRef),
    ...sessionPinTally(principal, 'transaction'),
  };

  const check = { ...pin, pin: payment.transaction_pin, storedHash: user.transaction_pin_hash };
  const rightPin = await checkPinAndAudit(app, origin, check, 'transaction_authorization').catch((error: unknown) => {
    if (error instanceof PinRefused) {
      const outcome = error.outcome === 'wrong' ? 'wrong_pin' : 'pin_locked';
      refused(outcome, { attempts_left: error.data?.attempts_left, locked_now: error.lockedNow });
    }
    throw error;
  });

  for (let round = 1; ; round++) {
    const token = randomToken();
    const authorizedAt = epochSeconds(app.clock);
    const expiresAt = authorizedAt + app.config.authorizationTtlSeconds;
    const items: LabelledItem<string>[] = [
      {
        label: 'authorization',
        item: authorizationPut(app.table, companyId, hashToken(token), {
          user_id: userId,
          amount,
          currency,
          payee,
          reference,
          authorized_at: authorizedAt,
          expires_at: expiresAt,
          acr,
        }),
      },
      { label: 'reference', item: referenceClaimPut(app.table, { companyId, userId, reference, expiresAt }, authorizedAt) },
      ...rightPin.writes.map((write) => ({ label: 'pin', ...write })),
      { label: 'pin_version', item: pinVersionCheck(app.table, { ...pin, pinVersion: user.transaction_pin_version ?? 0 }) },
    ];
    if (acr === 'strong')
      items.push(
        ...heldResetVoidWrites(app, user, changes, 'transaction', { requestRef: idempotencyRef }).map(({ item }) => ({
          label: 'void',
          item,
        })),
      );
    if (window) items.push({ label: 'sms_window', item: window });
    try {
      await writeTransaction(app.table, items);
    } catch (error) {
      if (error instanceof ConditionsFailed && error.labels.includes('pin_version')) {
        // The transaction PIN was changed or reset after it was read: the PIN compared is no longer the user's.
        // Its try stays counted, as a wrong PIN's does.
        const attemptsLeft = Math.max(0, app.config.pinMaxFailures - rightPin.triesTaken);
        refused('pin_changed', { attempts_left: attemptsLeft });
        throw new AppError('PIN_INVALID', { detail: 'the transaction PIN changed meanwhile', data: { attempts_left: attemptsLeft } });
      }
      // Another SMS-strength payment counted meanwhile, a held reset ended meanwhile: read again.
      const raced = error instanceof ConditionsFailed && error.labels.every((label) => label === 'sms_window' || label === 'void');
      if (raced && round < MAX_ROUNDS) {
        window = await smsWindow().catch(async (refusal: unknown) => {
          // The PIN was right: its tries go back, though nothing is approved.
          await rightPin.giveBack();
          refused('sms_payment_limit', { currency });
          throw refusal;
        });
        continue;
      }
      if (!(error instanceof ConditionsFailed && error.labels.includes('reference'))) throw error;
      // The PIN was right: its tries go back, though the authorization does not.
      await rightPin.giveBack();
      refused('reference_live', { reference });
      throw fieldError('BAD_REQUEST', 'reference', 'already has a live authorization: redeem it or wait until it expires');
    }
    // The reference joins the payment's records; neither the token nor the amount and payee are logged.
    audit(app, origin, 'transaction_authorized', {
      company_id: companyId,
      user_id: userId,
      outcome: 'authorized',
      reference,
      currency,
      acr,
    });
    return { authorization_token: token, expires_in: app.config.authorizationTtlSeconds, acr };
  }
}
