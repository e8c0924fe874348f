import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { audit, type RequestOrigin } from '../observability/audit.js';
import { pendingChangeEndWrites } from '../pending-changes/change-cancel.js';
import { emailClaimKey, pendingChangeKey } from '../store/keys.js';
import { isDue, type PendingChange, type PendingOtherChange, pendingChangeComplete } from '../store/pending-change-store.js';
import { ConditionsFailed, type LabelledItem, type TransactItem, writeTransaction } from '../store/transactions.js';
import { emailClaimPut, emailClaimRelease, getUser, type ProfileChanges, type UserRecord, userProfileChange } from '../store/user-store.js';
import type { UserProfileUpdateInput } from './profile-update-input.js';

// A held profile change (API contract 3.15, second reading): from an SMS-strength session a change of
// the names, the birth date or the email waits PHONE_CHANGE_HOLD_HOURS as a pending change of kind
// `profile` (its new values in `fields`), told to the number and the user's list and cancellable
// from any session; the image and the location are no one's proof of identity and change at once.
// Once due it lands at the user's next profile read: the record and, for a new email, its claim
// taken and the old one given up, in one transaction with the change's deletion. An email another
// user claimed meanwhile makes the change void.

/** The fields a code alone cannot change at once: who the user is, and where the account's mail goes. */
export const HELD_PROFILE_FIELDS = ['first_name', 'last_name', 'birth_date', 'email'] as const;

/** The held fields a request changes: those it gives, other than the user's now. */
export function heldFieldsOf(input: UserProfileUpdateInput, user: UserRecord): ProfileChanges {
  const changed = HELD_PROFILE_FIELDS.filter((field) => input[field] !== undefined && input[field] !== user[field]);
  return Object.fromEntries(changed.map((field) => [field, input[field]]));
}

/** The email's claim is free, or the user's own: a held change waits on no email another user holds. */
export function emailClaimFreeFor(
  app: Pick<App, 'table'>,
  companyId: string,
  email: string,
  userType: number,
  userId: string,
): TransactItem {
  return {
    ConditionCheck: {
      TableName: app.table.name,
      Key: emailClaimKey(companyId, email, userType),
      ConditionExpression: 'attribute_not_exists(pk) OR user_id = :self',
      ExpressionAttributeValues: { ':self': userId },
    },
  };
}

/**
 * The user's held profile change, if due, put in place: answers the record as it now is (the one
 * given when nothing was due, or nothing could land: a change cancelled meanwhile, a record moved on,
 * read again at the next read).
 */
export async function withDueProfileChange(
  app: App,
  origin: RequestOrigin | undefined,
  user: UserRecord,
  changes: PendingChange[],
): Promise<UserRecord> {
  const now = epochSeconds(app.clock);
  const due = changes.find((change): change is PendingOtherChange => change.kind === 'profile' && isDue(change, now));
  if (!due) return user;
  const { company_id: companyId, user_id: userId } = user;
  const fields = (due.fields ?? {}) as ProfileChanges;
  const newEmail = fields.email !== undefined && fields.email !== user.email ? fields.email : undefined;
  // An old claim that is not the user's (never written, as for users from before claims) is left alone.
  for (let releaseOld = true; ; releaseOld = false) {
    const items: LabelledItem<string>[] = [
      { label: 'user', item: userProfileChange(app.table, companyId, userId, fields, user, now, newEmail !== undefined) },
      { label: 'pending', item: pendingChangeComplete(app.table, pendingChangeKey(companyId, userId, 'profile'), due.change_id, now) },
    ];
    if (newEmail) {
      items.push({ label: 'email', item: emailClaimPut(app.table, companyId, newEmail, user.user_type, userId) });
      if (user.email && releaseOld) {
        items.push({ label: 'old_email', item: emailClaimRelease(app.table, companyId, user.email, user.user_type, userId) });
      }
    }
    try {
      await writeTransaction(app.table, items);
      break;
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      const only = (label: string) => error.labels.length === 1 && error.labels[0] === label;
      if (only('old_email') && releaseOld) continue;
      if (only('email')) {
        // Another user claimed the email meanwhile: the change is void (the user's list no longer shows it).
        const end = pendingChangeEndWrites(app, companyId, userId, due, { reason: 'void', requestRef: undefined, quiet: true });
        await writeTransaction(app.table, end).catch((failure: unknown) => {
          if (!(failure instanceof ConditionsFailed)) throw failure;
        });
        const voided = { company_id: companyId, user_id: userId, outcome: 'void', kind: 'profile', change_id: due.change_id };
        audit(app, origin, 'change_completed', voided);
      }
      return (await getUser(app.table, companyId, userId, true)) ?? user;
    }
  }
  audit(app, origin, 'change_completed', {
    company_id: companyId,
    user_id: userId,
    outcome: 'profile_updated',
    kind: 'profile',
    change_id: due.change_id,
  });
  return { ...user, ...fields, updated_at: now } as UserRecord;
}
