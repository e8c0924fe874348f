import { createHash } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite } from './conditional-write.js';
import {
  type ItemKey,
  passkeyCredentialKey,
  SESSION_PREFIX,
  USER_PASSKEY_PREFIX,
  userKey,
  userPasskeyCountKey,
  userPasskeyKey,
  webauthnChallengeKey,
} from './keys.js';
import { queryPartitionPrefix } from './partition-query.js';
import type { Table } from './table.js';
import { putIfAbsent, type TransactItem } from './transactions.js';

// Passkeys (API contract 3.16): one item per passkey in its user's partition (what the lists, the
// export and the erasure read), a claim of its credential id within the company (uniqueness and the
// login's lookup), and the challenges the options routes gave, each taken once by a conditional delete.

/** A passkey as stored. The public key (COSE, base64url) is public, but no answer carries it. */
export interface PasskeyRecord {
  passkey_id: string;
  user_id: string;
  /** The WebAuthn credential id, base64url. */
  credential_id: string;
  public_key: string;
  /** The signature counter last seen (0 for authenticators that keep none, as synced passkeys). */
  counter: number;
  transports?: string[] | undefined;
  /** 1: a multi-device credential backed up (synced); 0: bound to one authenticator. */
  backed_up: 0 | 1;
  name: string;
  created_at: number;
  last_used_at?: number | undefined;
  /** Set when an assertion's counter went back: a clone of the authenticator (event passkey.cloned). */
  cloned_at?: number | undefined;
}

/** The claim of one credential id in a company. */
export interface PasskeyClaim {
  user_id: string;
  passkey_id: string;
}

/** A challenge the service gave: for which ceremony, and for a registration, which session asked. */
export interface ChallengeRecord {
  purpose: 'register' | 'login';
  /** Registration only: the session that asked (the challenge is bound to its sid) and its user. */
  session_id?: string | undefined;
  user_id?: string | undefined;
  /** Epoch seconds; also the TTL attribute. Past it the challenge is absent, whatever DynamoDB still holds. */
  expires_at: number;
  /** When its ceremony took it: kept until the TTL, not deleted, so a late copy of its put finds it there. */
  taken_at?: number | undefined;
}

/** The SHA-256 (hex) of a credential id as the claim's key holds it. */
export function credentialIdHash(credentialId: string): string {
  return createHash('sha256').update(credentialId).digest('hex');
}

export function challengePut(table: Table, companyId: string, challenge: string, record: ChallengeRecord): TransactItem {
  return putIfAbsent(table, webauthnChallengeKey(companyId, challenge), record);
}

/**
 * Stores a new challenge: one conditional PutItem (1 WRU; a transaction of one item would take 2),
 * returning what it finds when refused. A challenge is 32 random bytes: the item is there only when
 * this same put landed before its answer was lost and the SDK sent it again. That one is ours; any
 * other is a fault.
 */
export async function storeChallenge(table: Table, companyId: string, challenge: string, record: ChallengeRecord): Promise<void> {
  const put = challengePut(table, companyId, challenge, record).Put!;
  const outcome = await conditionalWrite(table.client.send(new PutCommand({ ...put, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })));
  if (outcome.written) return;
  const seen = outcome.seen as ChallengeRecord | undefined;
  if (seen?.purpose !== record.purpose || seen.session_id !== record.session_id || seen.expires_at !== record.expires_at) {
    throw new Error('a new challenge met another one stored under its value');
  }
}

/** A challenge still live (an expired or taken one is absent), read strongly consistently. */
export async function getChallenge(table: Table, companyId: string, challenge: string, now: number): Promise<ChallengeRecord | undefined> {
  const read = await table.client.send(
    new GetCommand({ TableName: table.name, Key: webauthnChallengeKey(companyId, challenge), ConsistentRead: true }),
  );
  const item = read.Item as ChallengeRecord | undefined;
  return item && item.expires_at > now && item.taken_at === undefined ? item : undefined;
}

/**
 * Takes a challenge once, in the transaction its ceremony commits: refused when taken meanwhile or
 * expired. Marked taken rather than deleted: a copy of its put that lands late (its answer lost, the
 * SDK's retry stored it) then finds it and cannot store it live again for a replayed assertion.
 */
export function challengeTake(table: Table, companyId: string, challenge: string, now: number): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: webauthnChallengeKey(companyId, challenge),
      UpdateExpression: 'SET taken_at = :now',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(taken_at) AND expires_at > :now',
      ExpressionAttributeValues: { ':now': now },
    },
  };
}

export async function getPasskeyClaim(table: Table, companyId: string, credentialId: string): Promise<PasskeyClaim | undefined> {
  const read = await table.client.send(
    new GetCommand({ TableName: table.name, Key: passkeyCredentialKey(companyId, credentialIdHash(credentialId)), ConsistentRead: true }),
  );
  return read.Item as PasskeyClaim | undefined;
}

export async function getPasskey(table: Table, companyId: string, userId: string, passkeyId: string): Promise<PasskeyRecord | undefined> {
  const read = await table.client.send(
    new GetCommand({ TableName: table.name, Key: userPasskeyKey(companyId, userId, passkeyId), ConsistentRead: true }),
  );
  return read.Item as PasskeyRecord | undefined;
}

/** Every passkey of a user, oldest id order (the lists sort by date themselves). */
export async function queryPasskeys(table: Table, companyId: string, userId: string): Promise<PasskeyRecord[]> {
  const items = await queryPartitionPrefix(table, userKey(companyId, userId).pk, USER_PASSKEY_PREFIX);
  return items.map(({ pk: _pk, sk: _sk, ...rest }) => rest as unknown as PasskeyRecord);
}

/** At most this many passkeys per user (API contract 3.16). */
export const PASSKEYS_MAX = 10;

/**
 * A new passkey's writes: its credential id claimed in the company (a known one fails: 409 code 7),
 * the passkey stored, and the user's count taken under PASSKEYS_MAX (a race past it fails).
 */
export function passkeyAddWrites(
  table: Table,
  companyId: string,
  passkey: PasskeyRecord,
): Record<'claim' | 'passkey' | 'count', TransactItem> {
  const claim: PasskeyClaim = { user_id: passkey.user_id, passkey_id: passkey.passkey_id };
  return {
    claim: putIfAbsent(table, passkeyCredentialKey(companyId, credentialIdHash(passkey.credential_id)), claim),
    passkey: putIfAbsent(table, userPasskeyKey(companyId, passkey.user_id, passkey.passkey_id), passkey),
    count: {
      Update: {
        TableName: table.name,
        Key: userPasskeyCountKey(companyId, passkey.user_id),
        UpdateExpression: 'ADD passkey_count :one',
        ConditionExpression: 'attribute_not_exists(passkey_count) OR passkey_count < :max',
        ExpressionAttributeValues: { ':one': 1, ':max': PASSKEYS_MAX },
      },
    },
  };
}

/** A passkey's removal: its item (only while there), its claim, and the user's count (without `count`, the caller counts several at once). */
export function passkeyRemoveWrites(table: Table, companyId: string, passkey: PasskeyRecord, count = true): TransactItem[] {
  return [
    {
      Delete: {
        TableName: table.name,
        Key: userPasskeyKey(companyId, passkey.user_id, passkey.passkey_id),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
    { Delete: { TableName: table.name, Key: passkeyCredentialKey(companyId, credentialIdHash(passkey.credential_id)) } },
    ...(count ? [passkeyCountChange(table, companyId, passkey.user_id, -1)] : []),
  ];
}

/** The user's passkey count moved by `add`. */
export function passkeyCountChange(table: Table, companyId: string, userId: string, add: number): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: userPasskeyCountKey(companyId, userId),
      UpdateExpression: 'ADD passkey_count :add',
      ExpressionAttributeValues: { ':add': add },
    },
  };
}

/**
 * A passkey's use by a login or step-up: the counter moves only from the value the check saw (two
 * assertions racing with one counter: one wins), and its last use is stamped.
 */
export function passkeyUseWrite(table: Table, companyId: string, passkey: PasskeyRecord, counter: number, now: number): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: userPasskeyKey(companyId, passkey.user_id, passkey.passkey_id),
      UpdateExpression: 'SET #counter = :counter, last_used_at = :now',
      ConditionExpression: 'attribute_exists(pk) AND #counter = :seen',
      ExpressionAttributeNames: { '#counter': 'counter' },
      ExpressionAttributeValues: { ':counter': counter, ':now': now, ':seen': passkey.counter },
    },
  };
}

/** Marks a passkey whose counter went back (a cloned authenticator): the one write a refused assertion makes. */
export function passkeyClonedWrite(table: Table, companyId: string, passkey: PasskeyRecord, now: number): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: userPasskeyKey(companyId, passkey.user_id, passkey.passkey_id),
      UpdateExpression: 'SET cloned_at = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':now': now },
    },
  };
}

/** The keys of a user's sessions, not ended, that began with one passkey. */
export async function queryPasskeySessions(table: Table, companyId: string, userId: string, passkeyId: string): Promise<ItemKey[]> {
  const items = await queryPartitionPrefix(table, userKey(companyId, userId).pk, SESSION_PREFIX, {
    filter: { expression: 'passkey_id = :passkey AND attribute_not_exists(ended_reason)', values: { ':passkey': passkeyId } },
    projection: 'pk, sk',
  });
  return items.map((item) => ({ pk: item.pk as string, sk: item.sk as string }));
}
