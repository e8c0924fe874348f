import { companyPrefix, pendingChangeKey, phoneChangeIndexKey, SESSION_PREFIX, USER_DEVICE_PREFIX, userKey } from '../../lib/store/keys.js';
import { UserStatus } from '../../lib/store/user-status.js';
import { itemId, type StoredItem } from './table-snapshot.js';

// Pending phone changes and assisted recoveries (issue 39), checked over a company's items as
// stored: no change or index item left half-done by a race of its completion, its cancel, the
// user's deletion or PIN logins. A change lives in two items (lib/store/pending-change-store.ts):
// the change in the user's partition and the index item by the new number that login_phone reads;
// ending one ends both, completing one deletes both. No vitest here: scripts/chaos.ts uses it too.

/** A recovery approved (or maybe, its answer lost): the user it moves and the number it moves them to. */
export interface RecoverySent {
  userId: string;
  toE164: string;
}

export interface PhoneChangeCheck {
  /** Live pending changes stored, and users found on the number a recovery moved them to. */
  live: number;
  recovered: number;
  /** A description of each broken rule; empty when all hold. */
  problems: string[];
}

/**
 * Statuses whose user may keep a live pending change: an active one, and a disabled one, whose change
 * sleeps (login_phone sends the new number nothing while the user is not active) until an admin
 * enables the account again. A deleted, reclaimed or erased user's change must have ended with it.
 */
const KEEPS_CHANGE: ReadonlySet<number> = new Set([UserStatus.ACTIVE, UserStatus.DISABLED]);

const isLiveChange = (item: StoredItem | undefined, nowSeconds: number): item is StoredItem =>
  item !== undefined && item.ended_reason === undefined && Number(item.expires_at) > nowSeconds;

/**
 * - A live pending change belongs to a stored user who may keep one, who is not on its number
 *   already, and the index item by its number is its own (else login_phone cannot complete it).
 * - A live index item (NEWPHONE) names a user who may keep a change and whose live pending change
 *   is that change_id, to that number (else a login to the number completes nothing, or the wrong thing).
 * - A user on the number a recovery moved them to has no device left (device_count 0, no DEVICE#
 *   item in their partition, no device index item naming them) and no live session begun on a
 *   device or before the move (phone_changed_at): the recovery removed and ended them all.
 * (A phone claim held by a user whose record has another number is claimCheck's.)
 */
export function phoneChangeCheck(items: StoredItem[], companyId: string, recoveries: RecoverySent[], nowSeconds: number): PhoneChangeCheck {
  const prefix = companyPrefix(companyId);
  const userPrefix = `${prefix}#USER#`;
  const byId = new Map(items.map((item) => [itemId(item), item]));
  const users = new Map(
    items.filter((item) => item.sk === 'PROFILE' && item.pk.startsWith(userPrefix)).map((user) => [user.user_id as string, user]),
  );
  const changeOf = (userId: string) => byId.get(itemId(pendingChangeKey(companyId, userId, 'phone')));
  const problems: string[] = [];
  let live = 0;

  for (const change of items.filter((item) => item.sk === pendingChangeKey(companyId, '', 'phone').sk && item.pk.startsWith(userPrefix))) {
    if (!isLiveChange(change, nowSeconds)) continue;
    live++;
    const userId = change.pk.slice(userPrefix.length);
    const what = `user ${userId}'s live pending change ${change.change_id} to ${change.phone_e164}`;
    const user = users.get(userId);
    if (!user) problems.push(`${what} has no user stored`);
    else if (!KEEPS_CHANGE.has(Number(user.status_id))) problems.push(`${what} outlived its user, of status ${user.status_id}`);
    else if (user.phone_e164 === change.phone_e164) problems.push(`${what} is live though the user is on that number`);
    const index = byId.get(itemId(phoneChangeIndexKey(companyId, change.phone_e164, Number(change.user_type))));
    if (index?.user_id !== userId || index.change_id !== change.change_id)
      problems.push(
        `${what} has no index item of its own (${index ? `the number's names ${index.user_id}'s ${index.change_id}` : 'none'})`,
      );
  }

  const indexPattern = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}#NEWPHONE#(.+)#TYPE#(\\d+)$`);
  for (const index of items.filter((item) => item.sk === 'PENDING')) {
    const match = indexPattern.exec(index.pk);
    if (!match || Number(index.expires_at) <= nowSeconds) continue;
    const phone = match[1];
    const what = `the index item of ${phone} (change ${index.change_id} of user ${index.user_id})`;
    const user = users.get(index.user_id);
    if (!user) {
      problems.push(`${what} names a user not stored`);
      continue;
    }
    if (!KEEPS_CHANGE.has(Number(user.status_id))) problems.push(`${what} outlived its user, of status ${user.status_id}`);
    const change = changeOf(index.user_id);
    if (!change) problems.push(`${what} is live though the user has no pending change`);
    else if (change.change_id !== index.change_id) problems.push(`${what} is live though the user's pending change is ${change.change_id}`);
    else if (change.ended_reason !== undefined) problems.push(`${what} is live though its change ended (${change.ended_reason})`);
    else if (Number(change.expires_at) <= nowSeconds) problems.push(`${what} is live though its change expired`);
    else if (change.phone_e164 !== phone) problems.push(`${what} is live though its change is to ${change.phone_e164}`);
  }

  let recovered = 0;
  const movedBy = new Map(recoveries.map((recovery) => [`${recovery.userId} ${recovery.toE164}`, recovery]));
  for (const user of users.values()) {
    if (!movedBy.has(`${user.user_id} ${user.phone_e164}`)) continue;
    recovered++;
    const userId = user.user_id as string;
    const what = `user ${userId}, moved to ${user.phone_e164} by a recovery,`;
    const partition = items.filter((item) => item.pk === userKey(companyId, userId).pk);
    if (Number(user.device_count ?? 0) !== 0) problems.push(`${what} counts ${user.device_count} device(s)`);
    const listed = partition.filter((item) => item.sk.startsWith(USER_DEVICE_PREFIX)).length;
    if (listed) problems.push(`${what} still lists ${listed} device(s)`);
    const indexed = items.filter(
      (item) => item.sk === 'DEVICE' && item.pk.startsWith(`${prefix}#DEVICE#`) && item.user_id === userId,
    ).length;
    if (indexed) problems.push(`${what} is still named by ${indexed} device index item(s)`);
    const movedAt = Number(user.phone_changed_at ?? 0);
    for (const session of partition.filter((item) => item.sk.startsWith(SESSION_PREFIX))) {
      if (session.ended_reason !== undefined || Number(session.expires_at) <= nowSeconds) continue;
      if (session.began === 'pin' || session.device_key !== undefined)
        problems.push(`${what} has a live session begun on a device (${session.sk})`);
      else if (Number(session.created_at) < movedAt) problems.push(`${what} has a live session begun before the move (${session.sk})`);
    }
  }
  return { live, recovered, problems };
}
