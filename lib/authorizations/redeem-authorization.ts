import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { audit } from '../observability/audit.js';
import { hashToken } from '../secrets/hashing.js';
import { type Redeemed, redeemStoredAuthorization } from '../store/authorization-store.js';
import { UserStatus } from '../store/user-status.js';
import { getUser } from '../store/user-store.js';
import type { RedeemAuthorizationInput, RedeemAuthorizationResult } from './redeem-authorization-payload.js';

/**
 * The payment service redeems an authorization (API contract 3.8): once, before it expires, and
 * only for the very values the user approved, and only while the user is active: one conditional
 * write (lib/store/
 * authorization-store.ts). Anything else is AUTHORIZATION_INVALID, never saying which value
 * differed; the audit line says why, for on-call.
 */
export async function redeemAuthorization(
  app: App,
  { company_id: companyId, authorization_token: token, ...payment }: RedeemAuthorizationInput,
  invocationId: string,
): Promise<RedeemAuthorizationResult> {
  const redeemed = await redeemStoredAuthorization(app.table, companyId, hashToken(token), payment, {
    invocationId,
    nowSeconds: epochSeconds(app.clock),
  });
  // Only an active user's approval pays (contract 3.8, amended in round 5): an operator who froze a
  // stolen account stops the payment approved a minute before. The redeem spends it either way.
  const outcome: Redeemed =
    redeemed.redeemed && (await getUser(app.table, companyId, redeemed.authorization.user_id, true))?.status_id !== UserStatus.ACTIVE
      ? { redeemed: false, why: 'user not active', userId: redeemed.authorization.user_id }
      : redeemed;
  if (!outcome.redeemed) {
    audit(app, undefined, 'authorization_redeem_refused', {
      company_id: companyId,
      user_id: outcome.userId,
      outcome: outcome.why,
      reference: payment.reference,
    });
    throw new AppError('AUTHORIZATION_INVALID', { detail: `authorization ${outcome.why}` });
  }
  const { user_id, amount, currency, payee, reference, authorized_at, acr = 'sms' } = outcome.authorization;
  audit(app, undefined, 'authorization_redeemed', { company_id: companyId, user_id, outcome: 'redeemed', reference, acr });
  return { user_id, amount, currency, payee, reference, authorized_date: authorized_at, acr };
}
