import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { erasureDueDelete } from '../store/erasure-store.js';
import { userKey } from '../store/keys.js';
import { ConditionsFailed, type LabelledItem, type TransactItem, writeTransaction } from '../store/transactions.js';
import { UserStatus } from '../store/user-status.js';
import { emailClaimPut, getUser, phoneClaimPut } from '../store/user-store.js';
import { seatsOnBecomingActive } from '../users/active-admins.js';

// An operator's undoing of a deletion before its erasure (npm run user:restore, API contract
// 3.11): in one transaction the user is active again, takes back their phone and email claims
// (refused, naming which, when someone took one meanwhile) and leaves the due list. The back
// office's restore (API contract 3.14) adds its record of the action to the same transaction.

export type RestoreRefusal = 'not_deleted' | 'erasure_due' | 'phone_taken' | 'email_taken';

export class RestoreRefused extends Error {
  constructor(readonly reason: RestoreRefusal) {
    super(reason);
    this.name = 'RestoreRefused';
  }
}

/** A claim taken back, or kept: a held deletion (contract 3.15, second reading) leaves the user's claims theirs until erasure. */
function ownClaim(put: TransactItem, userId: string): TransactItem {
  return {
    Put: {
      ...put.Put!,
      ConditionExpression: 'attribute_not_exists(pk) OR user_id = :self',
      ExpressionAttributeValues: { ...put.Put!.ExpressionAttributeValues, ':self': userId },
    },
  };
}

/** Restores the user; `also`: items of the same transaction (whose conditions always hold, such as a record's puts). */
export async function restoreUser(
  app: Pick<App, 'table' | 'clock'>,
  companyId: string,
  userId: string,
  also: LabelledItem<'record'>[] = [],
): Promise<void> {
  const user = await getUser(app.table, companyId, userId, true);
  if (!user) throw new AppError('NOT_FOUND', { detail: 'no such user' });
  const eraseAfter = (user as { erase_after?: number }).erase_after;
  if (user.status_id !== UserStatus.DELETION_REQUESTED || eraseAfter === undefined) throw new RestoreRefused('not_deleted');
  // Past erase_after the person is to be erased, whether or not the eraser has run yet: the promise to the user stands.
  const now = epochSeconds(app.clock);
  if (eraseAfter <= now) throw new RestoreRefused('erasure_due');
  const items: LabelledItem<'user' | 'phone' | 'email' | 'record'>[] = [
    {
      label: 'user',
      item: {
        Update: {
          TableName: app.table.name,
          Key: userKey(companyId, userId),
          UpdateExpression: 'SET status_id = :active, updated_at = :now REMOVE erase_after, deleted_at, deleted_device_keys',
          // Only from this deletion: an erasure that began first wins.
          ConditionExpression: 'status_id = :deleted AND erase_after = :eraseAfter AND erase_after > :now',
          ExpressionAttributeValues: {
            ':active': UserStatus.ACTIVE,
            ':deleted': UserStatus.DELETION_REQUESTED,
            ':eraseAfter': eraseAfter,
            ':now': now,
          },
        },
      },
    },
    {
      label: 'phone',
      item: ownClaim(phoneClaimPut(app.table, companyId, user.phone_e164, user.user_type, userId, UserStatus.ACTIVE), userId),
    },
    { label: 'user', item: erasureDueDelete(app.table, companyId, userId, eraseAfter) },
  ];
  if (user.email) {
    items.push({ label: 'email', item: ownClaim(emailClaimPut(app.table, companyId, user.email, user.user_type, userId), userId) });
  }
  // A restored admin is an active admin again (contract 3.14): a seat (none while deleted) and one more in the count.
  for (const { item } of seatsOnBecomingActive(app.table, companyId, user, now)) items.push({ label: 'user', item });
  items.push(...also);
  try {
    await writeTransaction(app.table, items);
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    if (error.labels.includes('user')) throw new RestoreRefused('not_deleted');
    throw new RestoreRefused(error.labels.includes('phone') ? 'phone_taken' : 'email_taken');
  }
}
