import { GetCommand } from '@aws-sdk/lib-dynamodb';
import {
  type ItemKey,
  PENDING_CHANGE_PREFIX,
  pendingChangeKey,
  phoneChangeIndexKey,
  phoneClaimKey,
  ROUND_5_PHONE_CHANGE_SORT_KEY,
  userKey,
} from './keys.js';
import { queryPartitionPrefix } from './partition-query.js';
import type { Acr } from './session-store.js';
import type { Table } from './table.js';
import type { TransactItem } from './transactions.js';

// Changes that wait (API contract 3.11 and 3.15): asked for from a session an SMS code alone could
// have opened, each waits PHONE_CHANGE_HOLD_HOURS, told to the number and the user's list, and any
// session of the user may cancel it meanwhile. One item per user and kind in the user's partition
// (keys.ts pendingChangeKey): a new request of a kind replaces the older one. A phone change also
// has an index item by its new number, which login_phone and verify_otp read. Ending a change
// marks its item (ended_reason: the stream tells the cancellation by it); completing one deletes it.

/** What waits: a new number, a new login or transaction PIN, the removal of a settled device; and (second reading) deletion, profile, export. */
export const PENDING_CHANGE_KINDS = ['phone', 'login_pin', 'transaction_pin', 'device_remove', 'delete', 'profile', 'export'] as const;
export type PendingChangeKind = (typeof PENDING_CHANGE_KINDS)[number];

/** Why a pending change ended without taking effect. */
export const PENDING_CHANGE_ENDS = ['cancelled', 'void', 'pin_proven', 'not_me', 'support_freeze'] as const;
export type PendingChangeEnd = (typeof PENDING_CHANGE_ENDS)[number];

/** What every kind of pending change holds. */
interface PendingChangeBase {
  change_id: string;
  kind: PendingChangeKind;
  /** Who asked: the user, or support (a recovery, contract 3.14). */
  via: 'user' | 'support';
  /** How strong the asking session was: a request from a weaker one never replaces it (3.15, second reading). */
  acr: Acr;
  created_at: number;
  /** UNIX seconds from which it takes effect. */
  effective_at: number;
  /** UNIX seconds from which it is void, where a kind has such an end (a phone change: effective_at + 7 days); also the TTL. */
  expires_at?: number | undefined;
  /** The request that asked for it: its retry (answer lost) is answered as the first. */
  requested_by_request?: string | undefined;
  /** The session that asked for it: a PIN it sets ends every other session when it takes effect. */
  requested_by_session?: string | undefined;
  ended_reason?: PendingChangeEnd | undefined;
  ended_at?: number | undefined;
  ended_by_request?: string | undefined;
  /** When `npm run changes:migrate` moved it from round 5's item (its user.phone_change_pending was told then). */
  migrated_at?: number | undefined;
}

/** A new phone number (3.11), asked for by the user or, as a recovery, by support (3.14). */
export interface PendingPhoneChange extends PendingChangeBase {
  kind: 'phone';
  /** effective_at + 7 days: not completed by then, it is void. */
  expires_at: number;
  user_type: number;
  dial_code: string;
  phone_number: string;
  phone_e164: string;
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

/** A new PIN by reset_pin or change_pin (3.15): until effective_at the current PIN stays the PIN. */
export interface PendingPinChange extends PendingChangeBase {
  kind: 'login_pin' | 'transaction_pin';
  /** The new PIN's hash (lib/secrets/hashing.ts hashPin): it replaces the current one at effective_at. */
  pin_hash: string;
  /** Reset (the PIN was forgotten) or changed (the current PIN was given): the notice it takes effect with. */
  reason: 'reset' | 'changed';
}

/** The removal of a settled device (3.15). */
export interface PendingDeviceRemoval extends PendingChangeBase {
  kind: 'device_remove';
  device_key: string;
}

/** Changes of the second reading that hold only what the kind says (their details are the kind's own). */
interface PendingOtherChangeOf<Kind extends 'delete' | 'profile' | 'export'> extends PendingChangeBase {
  kind: Kind;
  /** A profile change's new values, by field. */
  fields?: Record<string, unknown> | undefined;
}

/** One type per kind, so that Extract<PendingChange, { kind: 'export' }> finds it. */
export type PendingOtherChange = PendingOtherChangeOf<'delete'> | PendingOtherChangeOf<'profile'> | PendingOtherChangeOf<'export'>;

export type PendingChange = PendingPhoneChange | PendingPinChange | PendingDeviceRemoval | PendingOtherChange;

/** What the index item by the new number holds. */
export interface PhoneChangeIndex {
  user_id: string;
  change_id: string;
  effective_at: number;
  expires_at: number;
}

/** A pending change that is still live at `now`: not ended, not past its end (TTL deletes late, if at all). */
export function isLive<Change extends PendingChange>(change: Change | undefined, now: number): change is Change {
  return change !== undefined && change.ended_reason === undefined && (change.expires_at === undefined || change.expires_at > now);
}

/** A live change that runs: not a recovery still awaiting its approval. */
export function isRunning<Change extends PendingChange>(change: Change | undefined, now: number): change is Change {
  const phone = change as PendingChange | undefined;
  return isLive(change, now) && (phone?.kind !== 'phone' || phone.awaiting_approval === undefined);
}

/** A running change whose time has come: it takes effect at its next use (or, for a phone change, the next login to the new number). */
export function isDue<Change extends PendingChange>(change: Change | undefined, now: number): change is Change {
  return isRunning(change, now) && change.effective_at <= now;
}

/** A change item as read. Items of rounds 5 and earlier were phone changes only, with no kind. */
export function withKind(item: Record<string, unknown> | undefined): PendingChange | undefined {
  return item && ({ kind: 'phone', acr: 'sms', ...item } as PendingChange);
}

export async function getPendingChange<Kind extends PendingChangeKind>(
  table: Table,
  companyId: string,
  userId: string,
  kind: Kind,
  consistent = false,
): Promise<Extract<PendingChange, { kind: Kind }> | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.name, Key: pendingChangeKey(companyId, userId, kind), ConsistentRead: consistent }),
  );
  return withKind(Item) as Extract<PendingChange, { kind: Kind }> | undefined;
}

export const getPendingPhoneChange = (table: Table, companyId: string, userId: string, consistent = false) =>
  getPendingChange(table, companyId, userId, 'phone', consistent);

/** Every change item of a user, live or ended, one Query (one per kind at most). */
export async function queryPendingChanges(table: Table, companyId: string, userId: string): Promise<PendingChange[]> {
  const items = await queryPartitionPrefix(table, pendingChangeKey(companyId, userId, 'phone').pk, PENDING_CHANGE_PREFIX);
  return items.map((item) => withKind(item)!);
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
 * Stores a user's pending change of its kind, replacing the one read (`seen`; undefined: none was
 * there): two requests at once cannot both replace the same change, and a live change asked for by
 * a strong session is never replaced by a request of an SMS-strength one (3.15, second reading).
 */
export function pendingChangePut(
  table: Table,
  companyId: string,
  userId: string,
  change: PendingChange,
  seen: Pick<PendingChange, 'change_id'> | undefined,
): TransactItem {
  const values: Record<string, unknown> = {};
  let condition = 'attribute_not_exists(pk)';
  if (seen) {
    values[':seen'] = seen.change_id;
    condition = 'change_id = :seen';
    if (change.acr !== 'strong') {
      values[':strong'] = 'strong';
      values[':now'] = change.created_at;
      condition += ' AND (attribute_exists(ended_reason) OR expires_at <= :now OR attribute_not_exists(acr) OR acr <> :strong)';
    }
  }
  return {
    Put: {
      TableName: table.name,
      Item: { ...pendingChangeKey(companyId, userId, change.kind), ...change },
      ConditionExpression: condition,
      ...(seen ? { ExpressionAttributeValues: values } : {}),
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

/** Marks a live change ended (cancelled, void, undone): only that change, only once. */
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
      ConditionExpression:
        'change_id = :change AND attribute_not_exists(ended_reason) AND (attribute_not_exists(expires_at) OR expires_at > :now)',
      ExpressionAttributeValues: {
        ':reason': end.reason,
        ':now': end.now,
        ':request': end.requestRef ?? 'none',
        ':change': end.changeId,
      },
    },
  };
}

/** Deletes a change as it takes effect: only that change, only while it is live and due. */
export function pendingChangeComplete(table: Table, key: ItemKey, changeId: string, now: number): TransactItem {
  return {
    Delete: {
      TableName: table.name,
      Key: key,
      ConditionExpression:
        'change_id = :change AND attribute_not_exists(ended_reason) AND effective_at <= :now AND (attribute_not_exists(expires_at) OR expires_at > :now)',
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
      Key: pendingChangeKey(companyId, userId, 'phone'),
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

/** Where round 5 kept a user's one pending phone change (keys.ts ROUND_5_PHONE_CHANGE_SORT_KEY): read only by `npm run changes:migrate`. */
export function round5PhoneChangeKey(companyId: string, userId: string): ItemKey {
  return { pk: userKey(companyId, userId).pk, sk: ROUND_5_PHONE_CHANGE_SORT_KEY };
}

/**
 * A round-5 pending phone change as this round stores it (`npm run changes:migrate`): the same
 * change_id and fields, kind `phone`, via as stored (none: the user). Round 5 held only what a
 * session begun by OTP login asked for (a PIN login's session changed the number at once), so a
 * user's change is `sms`; support's recovery is `strong`, as startPhoneRecovery records it now.
 */
export function phoneChangeOfRound5(item: Record<string, unknown>, nowSeconds: number): PendingPhoneChange {
  const { pk: _pk, sk: _sk, ...fields } = item;
  const via = fields.via === 'support' ? 'support' : 'user';
  return {
    ...(fields as Omit<PendingPhoneChange, 'kind' | 'acr' | 'via'>),
    kind: 'phone',
    via,
    acr: via === 'support' ? 'strong' : 'sms',
    migrated_at: nowSeconds,
  };
}

/** Deletes a round-5 pending phone change as it moves: only while it is still that change. */
export function round5PhoneChangeDelete(table: Table, companyId: string, userId: string, changeId: string): TransactItem {
  return {
    Delete: {
      TableName: table.name,
      Key: round5PhoneChangeKey(companyId, userId),
      ConditionExpression: 'change_id = :change',
      ExpressionAttributeValues: { ':change': changeId },
    },
  };
}
