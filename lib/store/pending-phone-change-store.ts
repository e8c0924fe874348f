import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { type ItemKey, pendingPhoneChangeKey, phoneChangeIndexKey, phoneClaimKey } from './keys.js';
import type { Table } from './table.js';
import type { TransactItem } from './transactions.js';

// A phone change that waits (API contract 3.11, amended in round 5): asked for from a session begun
// by OTP login, it moves the account only at a login to the new number after its hold. Two items:
// the change in the user's partition (one per user), and an index item by the new number, which
// login_phone and verify_otp read. Ending a change marks the user's item (ended_reason: the stream
// tells `user.phone_change_cancelled` by it) and deletes the index item; completing one deletes both.

/** Why a pending change ended without moving the account. */
export type PendingChangeEnd = 'cancelled' | 'void';

export interface PendingPhoneChange {
  change_id: string;
  user_type: number;
  dial_code: string;
  phone_number: string;
  phone_e164: string;
  /** Who asked: the user (an OTP-login session with the login PIN) or support (contract 3.14). */
  via: 'user' | 'support';
  created_at: number;
  /** UNIX seconds from which a login to the new number completes it. */
  effective_at: number;
  /** UNIX seconds from which it is void (effective_at + 7 days); also the table's TTL attribute. */
  expires_at: number;
  /** The request that asked for it: its retry (answer lost) is answered as the first. */
  requested_by_request?: string | undefined;
  ended_reason?: PendingChangeEnd | undefined;
  ended_at?: number | undefined;
  ended_by_request?: string | undefined;
  /**
   * A recovery started by support that a second employee, an admin, has not approved yet (contract
   * 3.14): its effective_at equals its expires_at, so no login completes it; approval sets both anew.
   */
  awaiting_approval?: 1 | undefined;
  /** The employee who started a recovery, and the admin who approved it, and when. */
  started_by?: string | undefined;
  approved_by?: string | undefined;
  approved_at?: number | undefined;
}

/** What the index item by the new number holds. */
export interface PhoneChangeIndex {
  user_id: string;
  change_id: string;
  effective_at: number;
  expires_at: number;
}

/** A pending change that is still live at `now`: not ended, not past its 7 days (TTL deletes late, if at all). */
export function isLive(change: PendingPhoneChange | undefined, now: number): change is PendingPhoneChange {
  return change !== undefined && change.ended_reason === undefined && change.expires_at > now;
}

/** A live change that runs: not a recovery still awaiting its approval. */
export function isRunning(change: PendingPhoneChange | undefined, now: number): change is PendingPhoneChange {
  return isLive(change, now) && change.awaiting_approval === undefined;
}

export async function getPendingPhoneChange(
  table: Table,
  companyId: string,
  userId: string,
  consistent = false,
): Promise<PendingPhoneChange | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.name, Key: pendingPhoneChangeKey(companyId, userId), ConsistentRead: consistent }),
  );
  return Item as PendingPhoneChange | undefined;
}

export async function getPhoneChangeIndex(
  table: Table,
  companyId: string,
  phoneE164: string,
  userType: number,
  consistent = false,
): Promise<PhoneChangeIndex | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.name, Key: phoneChangeIndexKey(companyId, phoneE164, userType), ConsistentRead: consistent }),
  );
  return Item as PhoneChangeIndex | undefined;
}

/**
 * Stores a user's pending change, replacing the one read (`seenChangeId`; undefined: none was
 * there): two requests at once cannot both replace the same change.
 */
export function pendingChangePut(
  table: Table,
  companyId: string,
  userId: string,
  change: PendingPhoneChange,
  seenChangeId: string | undefined,
): TransactItem {
  return {
    Put: {
      TableName: table.name,
      Item: { ...pendingPhoneChangeKey(companyId, userId), ...change },
      ConditionExpression: seenChangeId === undefined ? 'attribute_not_exists(pk)' : 'change_id = :seen',
      ...(seenChangeId === undefined ? {} : { ExpressionAttributeValues: { ':seen': seenChangeId } }),
    },
  };
}

/**
 * The index item by the new number, taken only while no other user's live change waits on it: one
 * pending change per number (a second user's request is 409 code 7, as a held claim is).
 */
export function phoneChangeIndexPut(
  table: Table,
  companyId: string,
  phoneE164: string,
  userType: number,
  index: PhoneChangeIndex,
  now: number,
): TransactItem {
  return {
    Put: {
      TableName: table.name,
      Item: { ...phoneChangeIndexKey(companyId, phoneE164, userType), ...index },
      ConditionExpression: 'attribute_not_exists(pk) OR user_id = :user OR expires_at <= :now',
      ExpressionAttributeValues: { ':user': index.user_id, ':now': now },
    },
  };
}

/** Deletes the index item of a change, only while it is still that change's (or gone). */
export function phoneChangeIndexDelete(table: Table, companyId: string, phoneE164: string, userType: number, userId: string): TransactItem {
  return {
    Delete: {
      TableName: table.name,
      Key: phoneChangeIndexKey(companyId, phoneE164, userType),
      ConditionExpression: 'attribute_not_exists(pk) OR user_id = :user',
      ExpressionAttributeValues: { ':user': userId },
    },
  };
}

/** The new number's claim is free: a pending change waits only on a number no one holds. */
export function phoneClaimFree(table: Table, companyId: string, phoneE164: string, userType: number): TransactItem {
  return {
    ConditionCheck: {
      TableName: table.name,
      Key: phoneClaimKey(companyId, phoneE164, userType),
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** Marks a live change ended (cancelled by the user, void at completion): only that change, only once. */
export function pendingChangeEnd(
  table: Table,
  key: ItemKey,
  end: { changeId: string; reason: PendingChangeEnd; now: number; requestRef: string | undefined },
): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: key,
      UpdateExpression: 'SET ended_reason = :reason, ended_at = :now, ended_by_request = :request',
      ConditionExpression: 'change_id = :change AND attribute_not_exists(ended_reason) AND expires_at > :now',
      ExpressionAttributeValues: {
        ':reason': end.reason,
        ':now': end.now,
        ':request': end.requestRef ?? 'none',
        ':change': end.changeId,
      },
    },
  };
}

/** Deletes a change as it completes: only that change, only while it is live and due. */
export function pendingChangeComplete(table: Table, key: ItemKey, changeId: string, now: number): TransactItem {
  return {
    Delete: {
      TableName: table.name,
      Key: key,
      ConditionExpression: 'change_id = :change AND attribute_not_exists(ended_reason) AND effective_at <= :now AND expires_at > :now',
      ExpressionAttributeValues: { ':change': changeId, ':now': now },
    },
  };
}

/**
 * Approves a recovery that awaits it (contract 3.14): only that change, still live and awaiting,
 * and only by another employee than the one who started it. From then on it runs.
 */
export function recoveryApproval(
  table: Table,
  companyId: string,
  userId: string,
  approval: { changeId: string; approverId: string; now: number; effectiveAt: number; expiresAt: number },
): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: pendingPhoneChangeKey(companyId, userId),
      UpdateExpression:
        'SET effective_at = :effective, expires_at = :expires, approved_by = :approver, approved_at = :now REMOVE awaiting_approval',
      ConditionExpression:
        'change_id = :change AND awaiting_approval = :one AND attribute_not_exists(ended_reason) AND expires_at > :now AND started_by <> :approver',
      ExpressionAttributeValues: {
        ':effective': approval.effectiveAt,
        ':expires': approval.expiresAt,
        ':approver': approval.approverId,
        ':now': approval.now,
        ':change': approval.changeId,
        ':one': 1,
      },
    },
  };
}

/** The index item by the new number follows its change's approval: due from effective_at on. */
export function phoneChangeIndexApproval(
  table: Table,
  companyId: string,
  phoneE164: string,
  userType: number,
  approval: { userId: string; changeId: string; effectiveAt: number; expiresAt: number },
): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: phoneChangeIndexKey(companyId, phoneE164, userType),
      UpdateExpression: 'SET effective_at = :effective, expires_at = :expires',
      ConditionExpression: 'user_id = :user AND change_id = :change',
      ExpressionAttributeValues: {
        ':effective': approval.effectiveAt,
        ':expires': approval.expiresAt,
        ':user': approval.userId,
        ':change': approval.changeId,
      },
    },
  };
}
