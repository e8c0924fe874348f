import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { NotificationType } from '../../lib/notifications/notification-record.js';
import { companyPrefix, emailClaimKey, phoneClaimKey, referralCodeKey, SESSION_PREFIX, userKey } from '../../lib/store/keys.js';
import { referralCountIn } from '../../lib/store/referral-store.js';
import { UserStatus } from '../../lib/store/user-status.js';

// Reads a table the way a test or script checks it: every item (of one company), as stored.
// No vitest here: scripts/fuzz.ts and scripts/load.ts use it too.

export type StoredItem = Record<string, any> & { pk: string; sk: string };

/** Every item of the table, or of one company when companyId is given. A Scan: tests and scripts only. */
export async function scanItems(client: DynamoDBDocumentClient, tableName: string, companyId?: string): Promise<StoredItem[]> {
  const items: StoredItem[] = [];
  let start: Record<string, any> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        ExclusiveStartKey: start,
        ConsistentRead: true,
        ...(companyId
          ? {
              FilterExpression: 'pk = :company OR begins_with(pk, :prefix)',
              ExpressionAttributeValues: { ':company': companyPrefix(companyId), ':prefix': `${companyPrefix(companyId)}#` },
            }
          : {}),
      }),
    );
    items.push(...((page.Items ?? []) as StoredItem[]));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** An item's identity: its key, as one string. */
export const itemId = (item: { pk: string; sk: string }) => `${item.pk} | ${item.sk}`;

/** Key-sorted JSON, so two reads of an unchanged item compare equal. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object' && !(value instanceof Set)) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonical(inner)}`).join(',')}}`;
  }
  if (value instanceof Set) return `Set${canonical([...value].sort())}`;
  return JSON.stringify(value) ?? 'undefined';
}

/** Items by key, with a comparable form of each. */
export type Snapshot = Map<string, { item: StoredItem; text: string }>;

export function snapshotOf(items: StoredItem[]): Snapshot {
  return new Map(items.map((item) => [itemId(item), { item, text: canonical(item) }]));
}

export interface SnapshotDiff {
  added: StoredItem[];
  removed: StoredItem[];
  changed: { before: StoredItem; after: StoredItem }[];
}

export function diffSnapshots(before: Snapshot, after: Snapshot): SnapshotDiff {
  const diff: SnapshotDiff = { added: [], removed: [], changed: [] };
  for (const [id, now] of after) {
    const then = before.get(id);
    if (!then) diff.added.push(now.item);
    else if (then.text !== now.text) diff.changed.push({ before: then.item, after: now.item });
  }
  for (const [id, then] of before) if (!after.has(id)) diff.removed.push(then.item);
  return diff;
}

export const isUnchanged = (diff: SnapshotDiff) => !diff.added.length && !diff.removed.length && !diff.changed.length;

/** The statuses whose users hold no claim (and no live session), named as a problem names them. */
const RELEASED_STATUSES: Record<number, string> = {
  [UserStatus.PHONE_RECLAIMED]: 'reclaimed',
  [UserStatus.DELETION_REQUESTED]: 'deleted',
};

/** Every status but active, whose users have no live session, named as a problem names them. */
const INACTIVE_STATUSES: Record<number, string> = {
  ...RELEASED_STATUSES,
  [UserStatus.DISABLED]: 'disabled',
  [UserStatus.ERASED]: 'erased',
};

/**
 * What must hold for every company after any sequence of requests, failed or not: no user
 * without its phone, email and referral-code claims (but a user whose phone was reclaimed or whose
 * deletion was asked for, who holds neither phone nor email claim), no live session of a user
 * who is not active (disabled, reclaimed, deleted or erased), no claim
 * without its user, every session a user's, and every referral counted exactly once (the count
 * equals the notifications in the referrer's list).
 * Returns a description of each broken rule; empty when all hold.
 */
export function identityProblems(items: StoredItem[], companyId: string): string[] {
  const byId = new Map(items.map((item) => [itemId(item), item]));
  const find = (key: { pk: string; sk: string }) => byId.get(itemId(key));
  const problems: string[] = [];
  const userPrefix = `${companyPrefix(companyId)}#USER#`;
  const users = items.filter((item) => item.sk === 'PROFILE' && item.pk.startsWith(userPrefix));
  const userIds = new Set(users.map((user) => user.user_id as string));

  for (const user of users) {
    const id = user.user_id as string;
    const phoneClaim = find(phoneClaimKey(companyId, user.phone_e164, user.user_type));
    const emailClaim = user.email ? find(emailClaimKey(companyId, user.email, user.user_type)) : undefined;
    // A reclaimed user and one whose deletion was asked for (lib/deletion/account-deletion.ts) gave their phone
    // and email claims up and had every session ended; the record keeps the phone and email.
    const released = RELEASED_STATUSES[user.status_id as number];
    // A user who is not active has had every session ended with the change of status (a disable,
    // a reclaim, a deletion), and none is granted after it. An ended session's item stays until its
    // TTL, marked (lib/store/session-store.ts): it is none.
    const inactive = INACTIVE_STATUSES[user.status_id as number];
    if (inactive) {
      const sessions = items.filter(
        (item) => item.pk === userKey(companyId, id).pk && item.sk.startsWith(SESSION_PREFIX) && item.ended_reason === undefined,
      );
      if (sessions.length) problems.push(`${inactive} user ${id} still has ${sessions.length} session(s)`);
    }
    if (released) {
      if (phoneClaim?.user_id === id || emailClaim?.user_id === id) problems.push(`${released} user ${id} still holds a claim`);
    } else {
      if (phoneClaim?.user_id !== id) problems.push(`user ${id} lacks its phone claim`);
      if (user.email && emailClaim?.user_id !== id) problems.push(`user ${id} lacks its email claim`);
      if (phoneClaim?.user_id === id && (phoneClaim.status_id ?? UserStatus.ACTIVE) !== (user.status_id ?? UserStatus.ACTIVE))
        problems.push(`user ${id}'s phone claim has another status`);
    }
    if (find(referralCodeKey(companyId, user.referral_code))?.user_id !== id) problems.push(`user ${id} lacks its referral code claim`);
    // Security notices (a PIN locked or changed, a new device) share the list; only referral notices are counted.
    const notifications = items.filter(
      (item) =>
        item.pk === userKey(companyId, id).pk && item.sk.startsWith('NOTIF#') && item.notification_type === NotificationType.REFERRAL,
    );
    const referralCount = referralCountIn(items.filter((item) => item.pk === userKey(companyId, id).pk));
    if (referralCount !== notifications.length) {
      problems.push(`user ${id} has referral_count ${referralCount} but ${notifications.length} notifications`);
    }
    for (const notification of notifications) {
      if (!userIds.has(notification.referred_user_id)) problems.push(`notification ${notification.id} names a missing user`);
    }
  }
  for (const claim of items.filter((item) => item.sk === 'CLAIM')) {
    // A payment reference's claim names its user in its key (authorizationReferenceKey), the others in user_id.
    const userId = claim.user_id ?? claim.pk.split('#AUTHREF#')[1]?.split('#')[0];
    if (!userIds.has(userId)) problems.push(`claim ${claim.pk} names missing user ${userId}`);
  }
  for (const session of items.filter((item) => item.sk.startsWith(SESSION_PREFIX))) {
    if (!users.some((user) => session.pk === userKey(companyId, user.user_id as string).pk))
      problems.push(`session ${session.sk} of a missing user`);
  }
  return problems;
}
