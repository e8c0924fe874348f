import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError, fieldError } from '../errors.js';
import { audit } from '../observability/audit.js';
import { checkPinAndAudit } from '../pins/check-pin-and-audit.js';
import { PinRefused } from '../pins/pin-attempts.js';
import { hashToken, randomToken } from '../secrets/hashing.js';
import { attemptIdOf } from '../store/attempt-sets.js';
import { authorizationPut, referenceClaimPut } from '../store/authorization-store.js';
import { clearPinTries, pinVersionCheck } from '../store/pin-store.js';
import { ConditionsFailed, writeTransaction } from '../store/transactions.js';
import { getUser } from '../store/user-store.js';
import type { TransactionAuthorizationCall } from './transaction-authorization-input.js';
import type { TransactionAuthorizationResult } from './transaction-authorization-result.js';

/**
 * The transaction PIN approves one exact payment (API contract 3.8, PSD2 dynamic linking): a
 * counted PIN check, the one login and change use (lib/pins/check-pin-and-audit.ts), then one
 * transaction that stores the authorization (its token only hashed), claims the user's payment
 * reference while it lives and clears the PIN's tries. The payment service redeems it once
 * (redeem-authorization.ts).
 */
export async function transactionAuthorization(
  app: App,
  { body: payment, principal, origin, idempotencyRef }: TransactionAuthorizationCall,
): Promise<TransactionAuthorizationResult> {
  const { companyId, userId } = principal;
  const user = await getUser(app.table, companyId, userId, true);
  if (!user) throw new AppError('UNAUTHORIZED', { detail: 'the token’s user is gone' });
  const pin = { companyId, userId, pinType: 'transaction' as const, attemptId: attemptIdOf(idempotencyRef) };
  const refused = (outcome: string, details: Record<string, unknown> = {}) =>
    audit(app, origin, 'transaction_authorization_refused', { company_id: companyId, user_id: userId, outcome, ...details });

  const check = { ...pin, pin: payment.transaction_pin, storedHash: user.transaction_pin_hash };
  const { clearTries, triesTaken } = await checkPinAndAudit(app, origin, check, 'transaction_authorization').catch((error: unknown) => {
    if (error instanceof PinRefused) {
      const outcome = error.outcome === 'wrong' ? 'wrong_pin' : 'pin_locked';
      refused(outcome, { attempts_left: error.data?.attempts_left, locked_now: error.lockedNow });
    }
    throw error;
  });

  const token = randomToken();
  const now = epochSeconds(app.clock);
  const expiresAt = now + app.config.authorizationTtlSeconds;
  const { amount, currency, payee, reference } = payment;
  try {
    await writeTransaction(app.table, [
      {
        label: 'authorization',
        item: authorizationPut(app.table, companyId, hashToken(token), {
          user_id: userId,
          amount,
          currency,
          payee,
          reference,
          authorized_at: now,
          expires_at: expiresAt,
        }),
      },
      { label: 'reference', item: referenceClaimPut(app.table, { companyId, userId, reference, expiresAt }, now) },
      { label: 'pin', item: clearTries },
      { label: 'pin_version', item: pinVersionCheck(app.table, { ...pin, pinVersion: user.transaction_pin_version ?? 0 }) },
    ]);
  } catch (error) {
    if (error instanceof ConditionsFailed && error.labels.includes('pin_version')) {
      // The transaction PIN was changed or reset after it was read: the PIN compared is no longer the user's.
      // Its try stays counted, as a wrong PIN's does.
      const attemptsLeft = Math.max(0, app.config.pinMaxFailures - triesTaken);
      refused('pin_changed', { attempts_left: attemptsLeft });
      throw new AppError('PIN_INVALID', { detail: 'the transaction PIN changed meanwhile', data: { attempts_left: attemptsLeft } });
    }
    if (!(error instanceof ConditionsFailed && error.labels.includes('reference'))) throw error;
    // The PIN was right: its tries go, though the authorization does not.
    await clearPinTries(app.table, pin);
    refused('reference_live', { reference });
    throw fieldError('BAD_REQUEST', 'reference', 'already has a live authorization: redeem it or wait until it expires');
  }
  // The reference joins the payment's records; neither the token nor the amount and payee are logged.
  audit(app, origin, 'transaction_authorized', { company_id: companyId, user_id: userId, outcome: 'authorized', reference, currency });
  return { authorization_token: token, expires_in: app.config.authorizationTtlSeconds };
}
