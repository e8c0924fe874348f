import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite, counterStillIs } from './conditional-write.js';
import { type ItemKey, SESSION_PREFIX, sessionKey, userKey } from './keys.js';
import { queryPartitionPrefix } from './partition-query.js';
import type { Table } from './table.js';
import { putIfAbsent, type TransactItem } from './transactions.js';
import { UserStatus } from './user-status.js';

// Sessions: one item per session, in its user's partition (keys.ts sessionKey). A session is ended
// by marking its item (ended_reason), not by deleting it: the table's stream then says why it
// ended, which the events of API contract 3.13 publish (lib/events). Every read here takes a
// marked session for an absent one; the item goes when its TTL comes.

/** Why a session ended (API contract 3.13, session.ended); running out its lifetime or idle time is none of them. */
export const SESSION_END_REASONS = [
  'logout',
  'logout_all',
  'disabled',
  'device_removed',
  'pin_changed',
  'phone_changed',
  'deleted',
  'reclaimed',
  'refresh_reuse',
  // The back office (API contract 3.14): an employee ended them, or a recovery completed.
  'support',
  'recovered',
  // The owner's way back (API contract 3.15): not_me ended every other session.
  'not_me',
  // A passkey removed (API contract 3.16): the sessions it began end with it.
  'passkey_removed',
] as const;
export type SessionEndReason = (typeof SESSION_END_REASONS)[number];

/** What ending a session writes on its item: why and when (the first end's, if two race). */
const END_SESSION = 'SET ended_reason = if_not_exists(ended_reason, :reason), ended_at_ms = if_not_exists(ended_at_ms, :endedAt)';
/** A session not ended: the condition of every write that needs a live one. */
const NOT_ENDED = 'attribute_not_exists(ended_reason)';

/** How many sessions are ended at once outside a transaction. */
const ENDS_AT_ONCE = 10;

/** How strong a session is (API contract 3.15), the access token's `acr` claim: lib/sessions/session-strength.ts. */
export const ACR_VALUES = ['strong', 'sms'] as const;
export type Acr = (typeof ACR_VALUES)[number];

/** How a session began: registration, an OTP login, a PIN login. */
export type SessionStart = 'register' | 'otp' | 'pin' | 'passkey';

export interface SessionRecord {
  user_type: number;
  /** How the session began (sessions from before this was kept have none). */
  began?: SessionStart | undefined;
  /** How strong it is, fixed at its start (API contract 3.15); sessions from before have none (sessions/session-strength.ts). */
  acr?: Acr | undefined;
  /** Epoch seconds of its latest strong proof (a step-up), when later than its start: the access token's auth_time. */
  auth_at?: number | undefined;
  /** When the credential it began with (a device, a passkey) was bound, epoch seconds: a strong session on an older one cancels a recovery. */
  credential_at?: number | undefined;
  /** The passkey it began with, if any (API contract 3.16): removing the passkey ends the session. */
  passkey_id?: string | undefined;
  /** The bound device it began on, if any: removing the device ends the session. */
  device_key?: string | undefined;
  /** The key its tokens are bound to (DPoP, contract 3.17), fixed at its start: its RFC 7638 thumbprint. */
  dpop_jkt?: string | undefined;
  created_at: number;
  /** Epoch seconds of the last recorded use (recorded at most once per touch interval). */
  last_used_at: number;
  /**
   * Epoch seconds when the session is over: the earlier of its absolute lifetime and its idle
   * timeout from the last recorded use. Also the table's TTL attribute.
   */
  expires_at: number;
  /** SHA-256 of the session's current refresh token (none on an opaque token's session, from before 3.12). */
  refresh_hash?: string | undefined;
  /** The current refresh token's generation: 1 at the start, one more each refresh. */
  refresh_gen?: number | undefined;
  /** SHA-256 of the refresh token the last refresh spent: presented again within the grace, it gets the current one back. */
  refresh_prev_hash?: string | undefined;
  /** Epoch seconds of the last refresh. */
  refreshed_at?: number | undefined;
  /** The 'refresh' key version the current token was derived under (refresh-tokens.ts successorOf). */
  refresh_key_version?: number | undefined;
  /** The call that spent the previous token: a write of its own the SDK sent again finds itself here. */
  refreshed_by?: string | undefined;
  /** The Idempotency-Key reference of the request that spent it ('none' without a key). */
  refreshed_for_request?: string | undefined;
  /** Set when the session was ended: it is then as good as absent. */
  ended_reason?: SessionEndReason | undefined;
  /** UNIX milliseconds of the end (session.ended's occurred_at). */
  ended_at_ms?: number | undefined;
}

/** The write that stores a new session, for a transaction. */
export function sessionPut(table: Table, companyId: string, userId: string, tokenHash: string, record: SessionRecord): TransactItem {
  return putIfAbsent(table, sessionKey(companyId, userId, tokenHash), record);
}

/**
 * Stores a new session by itself (sessionPut's item, outside a transaction). Its condition refuses
 * only a copy of this very put that landed first (a retry after a lost answer: the id is new), so
 * the session is there either way; false when what is there was ended meanwhile.
 */
export async function putSessionAlone(table: Table, write: TransactItem): Promise<boolean> {
  const put = await conditionalWrite(table.client.send(new PutCommand({ ...write.Put!, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })));
  return put.written || put.seen?.ended_reason === undefined;
}

/**
 * Why a session whose grant was refused after it was stored is marked ended. Not a reason of API
 * contract 3.13: nobody held its tokens, so no session.ended is published for it.
 */
const GRANT_REFUSED = 'grant_refused' as const;

/**
 * Ends a session whose grant was refused after it was stored (its tokens never answered): marked,
 * not deleted, so a late copy of its put finds it there and cannot bring it back. What ended it
 * first, such as a removal that found it, keeps its reason.
 */
export async function endUnansweredSession(table: Table, write: TransactItem, atMs: number): Promise<void> {
  const { pk, sk } = write.Put!.Item as ItemKey;
  await table.client.send(new UpdateCommand(sessionEndUpdate(table, { pk, sk }, { reason: GRANT_REFUSED, atMs }, false)));
}

/** What the user's side of a session grant also changes or requires. */
export interface GrantTerms {
  /** The code reached the phone: the user is phone-verified from now on. */
  phoneVerified?: boolean;
  /** The PIN compared was this version of that PIN (a change or reset since refuses the grant). */
  pinVersion?: { attribute: string; seen: number };
  /** Devices bound and removed with the session: added to the user's device count; with max, refused at that maximum. */
  deviceCount?: { add: number; max?: number };
  /**
   * The number the login code went to: the session is granted only while it is still the user's, so
   * an OTP login to a number the user is leaving never outlives the change (a SIM swapper's).
   */
  phoneE164?: string;
  /** Times (epoch seconds) the grant stamps on the user: a strong login's, a right login PIN's (contract 3.15). */
  stamps?: Partial<Record<'strong_login_at' | 'login_pin_right_at', number>>;
}

/**
 * The user's side of a new session, in the same transaction: only an active user may have one,
 * and session_version counts every session ever granted, so that whatever ends all sessions
 * (end-sessions.ts) can tell that one was granted while it worked.
 */
export function sessionGrant(table: Table, companyId: string, userId: string, terms: GrantTerms = {}): TransactItem {
  const adds = ['session_version :one'];
  const conditions = ['attribute_exists(pk)', 'status_id = :active'];
  const values: Record<string, unknown> = { ':one': 1, ':active': UserStatus.ACTIVE };
  const names: Record<string, string> = {};
  if (terms.pinVersion) {
    names['#pinVersion'] = terms.pinVersion.attribute;
    values[':pinVersion'] = terms.pinVersion.seen;
    // A PIN never changed has no version: 0.
    conditions.push(counterStillIs('#pinVersion', ':pinVersion', terms.pinVersion.seen));
  }
  if (terms.deviceCount && terms.deviceCount.add !== 0) {
    adds.push('device_count :devices');
    values[':devices'] = terms.deviceCount.add;
  }
  if (terms.phoneE164 !== undefined) {
    values[':phone'] = terms.phoneE164;
    conditions.push('phone_e164 = :phone');
  }
  if (terms.deviceCount?.max !== undefined) {
    values[':maxDevices'] = terms.deviceCount.max;
    conditions.push('(attribute_not_exists(device_count) OR device_count < :maxDevices)');
  }
  const sets = terms.phoneVerified ? ['phone_verified = :one'] : [];
  for (const [attribute, at] of Object.entries(terms.stamps ?? {})) {
    sets.push(`${attribute} = :${attribute}`);
    values[`:${attribute}`] = at;
  }
  return {
    Update: {
      TableName: table.name,
      Key: userKey(companyId, userId),
      UpdateExpression: `ADD ${adds.join(', ')}${sets.length ? ` SET ${sets.join(', ')}` : ''}`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeValues: values,
      ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
    },
  };
}

/** A session as stored, read strongly consistently: a session that was ended is gone at once. */
export async function getSession(table: Table, companyId: string, userId: string, tokenHash: string): Promise<SessionRecord | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.name, Key: sessionKey(companyId, userId, tokenHash), ConsistentRead: true }),
  );
  return liveRecord(Item as SessionRecord | undefined);
}

/** A session item as the code sees it: an ended one is absent. */
function liveRecord(item: SessionRecord | undefined): SessionRecord | undefined {
  return item?.ended_reason === undefined ? item : undefined;
}

/** Records a use of a session, unless another call recorded one since `seenLastUsedAt` or it was ended. */
export async function touchSession(table: Table, key: ItemKey, seenLastUsedAt: number, now: number): Promise<void> {
  await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        // last_used_at only: for some roles the one attribute of a user's partition they may write
        // (serverless/permissions.cjs). Never an item anew: IAM cannot require this condition.
        UpdateExpression: 'SET last_used_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND last_used_at = :seen',
        ExpressionAttributeValues: { ':now': now, ':seen': seenLastUsedAt },
      }),
    ),
  );
}

/** A refresh token spent: the session as it now is; or refused, with the session as the condition saw it (if any). */
export type RefreshSpend = { spent: true; session: SessionRecord } | { spent: false; seen: SessionRecord | undefined };

/** A refresh token's spend: the token presented, its successor, and who spends it. */
export interface RefreshSpendTerms {
  presentedHash: string;
  next: { hash: string; generation: number; keyVersion: number };
  /** A random id of this call: a write the SDK sent again after its answer was lost finds it (refreshed_by). */
  spender: string;
  /** The request's Idempotency-Key reference, if it sent one. */
  requestRef: string | undefined;
  now: number;
  idleSeconds: number;
  /** The key of the request's DPoP proof, if any: a bound session's token is spent only with a proof by its key (contract 3.17). */
  dpopJkt: string | undefined;
}

/**
 * Spends a session's refresh token (API contract 3.12) in one conditional write: only while the
 * session holds that token's hash and is live, it takes the next token's hash and generation,
 * remembers the spent one's hash and who spent it when, and records the use. Refused, it answers
 * the session as the condition saw it (if any).
 */
export async function spendRefreshToken(table: Table, key: ItemKey, spend: RefreshSpendTerms): Promise<RefreshSpend> {
  const outcome = await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression:
          'SET refresh_hash = :next, refresh_gen = :generation, last_used_at = :now, refresh_prev_hash = :presented, ' +
          'refreshed_at = :now, refresh_key_version = :keyVersion, refreshed_by = :spender, refreshed_for_request = :request',
        ConditionExpression:
          'refresh_hash = :presented AND expires_at > :now AND last_used_at > :idleBefore AND ' +
          `(attribute_not_exists(dpop_jkt) OR dpop_jkt = :jkt) AND ${NOT_ENDED}`,
        ExpressionAttributeValues: {
          ':next': spend.next.hash,
          ':generation': spend.next.generation,
          ':keyVersion': spend.next.keyVersion,
          ':spender': spend.spender,
          ':request': spend.requestRef ?? 'none',
          ':now': spend.now,
          ':presented': spend.presentedHash,
          ':idleBefore': spend.now - spend.idleSeconds,
          // No proof: a value no thumbprint has, so a bound session's condition fails.
          ':jkt': spend.dpopJkt ?? '-',
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ),
  );
  return outcome.written
    ? { spent: true, session: outcome.result.Attributes as SessionRecord }
    : { spent: false, seen: liveRecord(outcome.seen as SessionRecord | undefined) };
}

/** The write that ends one session, alone; with mustExist in a transaction, which then fails if the session is gone or ended. */
/** The update that ends a session: a published reason (SessionEnd), or a refused grant's (GRANT_REFUSED). */
function sessionEndUpdate(
  table: Table,
  key: ItemKey,
  end: { reason: SessionEndReason | typeof GRANT_REFUSED; atMs: number },
  mustExist: boolean,
) {
  return {
    TableName: table.name,
    Key: key,
    UpdateExpression: END_SESSION,
    // Without the condition, a session DynamoDB deleted (its TTL) between the Query and this write
    // would come back as a bare marked item: harmless (read as absent), but garbage.
    ...(mustExist ? { ConditionExpression: `attribute_exists(pk) AND ${NOT_ENDED}` } : {}),
    ExpressionAttributeValues: { ':reason': end.reason, ':endedAt': end.atMs },
  };
}

/** Why and when (UNIX ms) sessions end. */
export interface SessionEnd {
  reason: SessionEndReason;
  atMs: number;
}

/** Ends one session; false when it was not there (already ended). */
export async function endSession(table: Table, key: ItemKey, end: SessionEnd): Promise<boolean> {
  const outcome = await conditionalWrite(table.client.send(new UpdateCommand(sessionEndUpdate(table, key, end, true))));
  return outcome.written;
}

export interface StoredSession {
  key: ItemKey;
  /** Epoch seconds when it began. */
  createdAt: number;
  expiresAt: number;
  lastUsedAt: number;
  /** The device it is bound to, if any. */
  deviceKey: string | undefined;
}

/** How a session on a device began, ended or not: what tells a device's binding (npm run changes:migrate). */
export interface DeviceSessionStart {
  createdAt: number;
  began: SessionStart | undefined;
  acr: Acr | undefined;
}

/** Every stored session of a user begun on one device, ended ones included (their items stay until their TTL). */
export async function queryDeviceSessionStarts(
  table: Table,
  companyId: string,
  userId: string,
  deviceKey: string,
): Promise<DeviceSessionStart[]> {
  const items = await queryPartitionPrefix(table, userKey(companyId, userId).pk, SESSION_PREFIX, {
    filter: { expression: 'device_key = :device', values: { ':device': deviceKey } },
    projection: 'created_at, began, acr',
  });
  return items.map((item) => ({
    createdAt: item.created_at as number,
    began: item.began as SessionStart | undefined,
    acr: item.acr as Acr | undefined,
  }));
}

/**
 * Every stored session of a user not ended (expired ones included, as DynamoDB deletes them late),
 * read strongly consistently; or only those bound to one device.
 */
export async function querySessions(table: Table, companyId: string, userId: string, deviceKey?: string): Promise<StoredSession[]> {
  const items = await queryPartitionPrefix(table, userKey(companyId, userId).pk, SESSION_PREFIX, {
    filter: deviceKey
      ? { expression: `device_key = :device AND ${NOT_ENDED}`, values: { ':device': deviceKey } }
      : { expression: NOT_ENDED, values: {} },
    projection: 'pk, sk, created_at, expires_at, last_used_at, device_key',
  });
  return items.map((item) => ({
    key: { pk: item.pk as string, sk: item.sk as string },
    createdAt: item.created_at as number,
    expiresAt: item.expires_at as number,
    lastUsedAt: item.last_used_at as number,
    deviceKey: item.device_key as string | undefined,
  }));
}

/**
 * A user's sessions not ended, by the attributes their lists show (how and when each began, its use
 * and end, its device), never a hash: the back office's view (API contract 3.14).
 */
export async function querySessionListing(table: Table, companyId: string, userId: string): Promise<Record<string, unknown>[]> {
  return queryPartitionPrefix(table, userKey(companyId, userId).pk, SESSION_PREFIX, {
    filter: { expression: NOT_ENDED, values: {} },
    projection: 'sk, began, created_at, last_used_at, expires_at, device_key',
  });
}

/**
 * The write that ends one session inside a transaction; with mustExist, the transaction fails if
 * it already ended. Without, a session ended meanwhile keeps the first end's reason.
 */
export function sessionEnd(table: Table, key: ItemKey, end: SessionEnd, mustExist = false): TransactItem {
  return { Update: sessionEndUpdate(table, key, end, mustExist) };
}

/** Ends sessions outside a transaction, a few at a time; one ended or gone meanwhile is left as it is. */
export async function endSessions(table: Table, keys: ItemKey[], end: SessionEnd): Promise<void> {
  for (let start = 0; start < keys.length; start += ENDS_AT_ONCE) {
    await Promise.all(keys.slice(start, start + ENDS_AT_ONCE).map((key) => endSession(table, key, end)));
  }
}

/**
 * Steps a strong session up (API contract 3.15): its device proved itself and its PIN a moment ago,
 * so its latest strong proof (the access token's auth_time) is now. Only while the session is live,
 * strong and on that device. The session as it now is, or undefined when refused.
 */
export async function stepUpSession(
  table: Table,
  key: ItemKey,
  proof: { deviceKey?: string | undefined; now: number },
): Promise<SessionRecord | undefined> {
  // A device's step-up proves the session's own device; a passkey's, the user (any session of theirs).
  const device = proof.deviceKey === undefined ? '' : ' AND device_key = :device';
  const outcome = await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: 'SET auth_at = :now, last_used_at = :now',
        ConditionExpression: `attribute_exists(pk) AND ${NOT_ENDED}${device} AND expires_at > :now AND (acr = :strong OR (attribute_not_exists(acr) AND began = :pin))`,
        ExpressionAttributeValues: {
          ':now': proof.now,
          ':strong': 'strong',
          ':pin': 'pin',
          ...(proof.deviceKey === undefined ? {} : { ':device': proof.deviceKey }),
        },
        ReturnValues: 'ALL_NEW',
      }),
    ),
  );
  return outcome.written ? (outcome.result.Attributes as SessionRecord) : undefined;
}
