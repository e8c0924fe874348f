import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite } from './conditional-write.js';
import { authorizationKey, authorizationReferenceKey } from './keys.js';
import type { Table } from './table.js';
import { putIfAbsent, type TransactItem } from './transactions.js';

// Transaction authorizations (API contract 3.8): one item per authorization, keyed by the hash of
// its token, and a claim on the user's payment reference that lives as long as the authorization.

/** What a user approved: compared field by field when the payment service redeems it. */
export interface ApprovedPayment {
  /** A normalised decimal (lib/authorizations/amount.ts), so equal amounts are equal strings. */
  amount: string;
  currency: string;
  payee: string;
  reference: string;
}

export interface StoredAuthorization extends ApprovedPayment {
  user_id: string;
  authorized_at: number;
  /** How strong the approving session was (API contract 3.15); absent on authorizations from before: they were approved before strength was told. */
  acr?: 'strong' | 'sms' | undefined;
  /** The table's TTL attribute; the code treats an item past it as absent, since TTL deletion is late. */
  expires_at: number;
  /** The invocation that redeemed it: a write the SDK retried finds its own id and keeps its outcome. */
  redeemed_by?: string;
  redeemed_at?: number;
}

/** The write that stores a new authorization (its token is new and random: refused only on a collision). */
export function authorizationPut(table: Table, companyId: string, tokenHash: string, authorization: StoredAuthorization): TransactItem {
  return putIfAbsent(table, authorizationKey(companyId, tokenHash), authorization);
}

/** The write that claims a user's payment reference until expiresAt: refused while another claim of it lives. */
export function referenceClaimPut(
  table: Table,
  claim: { companyId: string; userId: string; reference: string; expiresAt: number },
  nowSeconds: number,
): TransactItem {
  return {
    Put: {
      TableName: table.name,
      Item: { ...authorizationReferenceKey(claim.companyId, claim.userId, claim.reference), expires_at: claim.expiresAt },
      ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :now',
      ExpressionAttributeValues: { ':now': nowSeconds },
    },
  };
}

/** Why a redeem was refused, for the audit only: the payment service hears AUTHORIZATION_INVALID whatever it was. */
export type RedeemRefusal = 'unknown' | 'used' | 'expired' | 'other values' | 'user not active';

export type Redeemed = { redeemed: true; authorization: StoredAuthorization } | { redeemed: false; why: RedeemRefusal; userId?: string };

/**
 * Redeems an authorization in one conditional write: only while it exists, is unexpired, has not
 * been redeemed, and every approved value equals the payment's. Of concurrent redeems exactly one
 * passes; a write the SDK sent again after a lost answer finds redeemed_by = its own invocation.
 */
export async function redeemStoredAuthorization(
  table: Table,
  companyId: string,
  tokenHash: string,
  payment: ApprovedPayment,
  redeem: { invocationId: string; nowSeconds: number },
): Promise<Redeemed> {
  const outcome = await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: authorizationKey(companyId, tokenHash),
        UpdateExpression: 'SET redeemed_by = :id, redeemed_at = if_not_exists(redeemed_at, :now)',
        ConditionExpression:
          'attribute_exists(pk) AND expires_at > :now AND #amount = :amount AND #currency = :currency AND #payee = :payee ' +
          'AND #reference = :reference AND (attribute_not_exists(redeemed_by) OR redeemed_by = :id)',
        // Named, so no field can collide with a word DynamoDB reserves.
        ExpressionAttributeNames: { '#amount': 'amount', '#currency': 'currency', '#payee': 'payee', '#reference': 'reference' },
        ExpressionAttributeValues: {
          ':id': redeem.invocationId,
          ':now': redeem.nowSeconds,
          ':amount': payment.amount,
          ':currency': payment.currency,
          ':payee': payment.payee,
          ':reference': payment.reference,
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ),
  );
  if (outcome.written) return { redeemed: true, authorization: outcome.result.Attributes as StoredAuthorization };
  const seen = outcome.seen as StoredAuthorization | undefined;
  if (!seen) return { redeemed: false, why: 'unknown' };
  const why: RedeemRefusal = seen.redeemed_by !== undefined ? 'used' : seen.expires_at <= redeem.nowSeconds ? 'expired' : 'other values';
  return { redeemed: false, why, userId: seen.user_id };
}
