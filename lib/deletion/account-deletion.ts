import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { audit, type RequestOrigin } from '../observability/audit.js';
import { pendingChangeEndWrites } from '../pending-changes/change-cancel.js';
import { changeEndingSessions } from '../sessions/end-sessions.js';
import { deviceRemoveWrites, queryUserDevices } from '../store/device-store.js';
import { erasureDuePuts, userDeletionChange } from '../store/erasure-store.js';
import { emailClaimKey, pendingChangeKey, phoneClaimKey } from '../store/keys.js';
import { isDue, isLive, type PendingChange, pendingChangeComplete, queryPendingChanges } from '../store/pending-change-store.js';
import { ConditionsFailed, type LabelledItem } from '../store/transactions.js';
import { UserStatus } from '../store/user-status.js';
import { claimRelease, getPhoneClaim, phoneClaimStatus } from '../store/user-store.js';
import { lastActiveAdmin, leftNoActiveAdmin, seatsOnLeavingActive } from '../users/active-admins.js';

// Deletion (API contract 3.11), below the routes that run it (user/delete, and a held deletion
// landing at a profile read or a PIN login): on fresh proof of the holder, one transaction makes the user
// DELETION_REQUESTED with the time of their erasure, ends every session, removes every device,
// gives up the phone and email claims (free for a new registration at once; a held deletion keeps
// them, marked deletion requested, until erasure: contract 3.15, second reading), ends every pending
// change (void, a phone change's index item freed: a restore must not bring one back, nor may it hold
// the new number from others) and puts the user in the company's due list. The record keeps its phone and email until erasure, so an operator's
// user:restore can take the claims back.

/** A deletion done: user/delete's answer (lib/account/delete-input.ts holds its schema). */
export interface DeletedNow {
  message: string;
  erase_after: number;
}

const DAY_SECONDS = 24 * 3600;

async function emailClaimHolder(app: Pick<App, 'table'>, companyId: string, email: string, userType: number): Promise<string | undefined> {
  const { Item } = await app.table.client.send(
    new GetCommand({ TableName: app.table.name, Key: emailClaimKey(companyId, email, userType), ConsistentRead: true }),
  );
  return Item?.user_id as string | undefined;
}

/** How a deletion goes: its claims freed at once (fresh strong) or kept until erasure (a held one), and the held change it completes. */
interface DeletionTerms {
  releaseClaims: boolean;
  completes?: PendingChange;
}

/**
 * Deletes an account in one transaction (see the top of this file): the user DELETION_REQUESTED with
 * its erase_after, every session and device gone, every other live pending change void (the held
 * deletion it completes deleted), and, when `releaseClaims`, the phone and email claims freed (else
 * the phone claim marked deletion requested: no login code goes to it, no one registers it).
 */
export async function deleteAccount(
  app: App,
  origin: RequestOrigin | undefined,
  companyId: string,
  userId: string,
  terms: DeletionTerms,
): Promise<DeletedNow> {
  const now = epochSeconds(app.clock);
  const eraseAfter = now + app.config.accountEraseAfterDays * DAY_SECONDS;
  let devices = 0;
  const ended = await changeEndingSessions(app, companyId, userId, 'deleted', async (user, version) => {
    if (user.status_id !== UserStatus.ACTIVE) throw new AppError('UNAUTHORIZED', { detail: 'the user is not active' });
    // The devices and the claims the user holds, read side by side: each needs only the record.
    const [listed, phone, emailHolder, pending] = await Promise.all([
      queryUserDevices(app.table, companyId, userId),
      getPhoneClaim(app.table, companyId, user.phone_e164, user.user_type, true),
      terms.releaseClaims && user.email ? emailClaimHolder(app, companyId, user.email, user.user_type) : undefined,
      queryPendingChanges(app.table, companyId, userId),
    ]);
    if (terms.completes && !pending.some((change) => change.change_id === terms.completes?.change_id && isLive(change, now))) {
      throw new ConditionsFailed(['held']);
    }
    devices = listed.length;
    const items: LabelledItem<string>[] = [
      {
        label: 'user',
        item: userDeletionChange(app.table, companyId, userId, version, {
          erase_after: eraseAfter,
          deleted_at: now,
          deleted_device_keys: listed.map((device) => device.device_key),
        }),
      },
      ...erasureDuePuts(app.table, companyId, userId, eraseAfter).map((item) => ({ label: 'due', item })),
    ];
    for (const device of listed) {
      const writes = deviceRemoveWrites(app.table, companyId, userId, device.device_key);
      // A device bound or removed meanwhile changes the user's session_version or listing: read again.
      items.push({ label: 'user', item: writes.index }, { label: 'user', item: writes.listing });
    }
    // Live pending changes end with the account; one cancelled or completed meanwhile fails it: read again.
    for (const change of pending.filter((change) => isLive(change, now))) {
      if (change.change_id === terms.completes?.change_id) {
        const key = pendingChangeKey(companyId, userId, 'delete');
        items.push({ label: 'held', item: pendingChangeComplete(app.table, key, change.change_id, now) });
        continue;
      }
      const end = { reason: 'void', requestRef: undefined, quiet: true } as const;
      items.push(...pendingChangeEndWrites(app, companyId, userId, change, end).map(({ item }) => ({ label: 'user', item })));
    }
    // Claims the user holds are given up; one another user holds (a reclaimed phone) is theirs to keep.
    if (phone?.user_id === userId && terms.releaseClaims) {
      items.push({ label: 'user', item: claimRelease(app.table, phoneClaimKey(companyId, user.phone_e164, user.user_type), userId) });
    } else if (phone?.user_id === userId) {
      const status = UserStatus.DELETION_REQUESTED;
      items.push({ label: 'user', item: phoneClaimStatus(app.table, companyId, user.phone_e164, user.user_type, userId, status) });
    }
    if (user.email && emailHolder === userId && terms.releaseClaims) {
      items.push({ label: 'user', item: claimRelease(app.table, emailClaimKey(companyId, user.email, user.user_type), userId) });
    }
    // An admin's deletion leaves the company's count of active admins, never below one (contract 3.14).
    items.push(...seatsOnLeavingActive(app.table, companyId, user));
    return items;
  }).catch((error: unknown) => {
    throw leftNoActiveAdmin(error) ? lastActiveAdmin() : error;
  });
  const outcome = terms.completes ? 'held_completed' : 'requested';
  audit(app, origin, 'account_deleted', { company_id: companyId, user_id: userId, outcome, erase_after: eraseAfter, devices });
  audit(app, origin, 'sessions_revoked', { company_id: companyId, user_id: userId, outcome: 'account_deleted', revoked: ended });
  return { message: 'Account deleted', erase_after: eraseAfter };
}

/**
 * A held deletion that is due lands at the user's next profile read or PIN login: the
 * account is deleted then, its claims kept until erasure. True when it landed (or another request
 * landed it): the caller then answers as for a user no longer active (401).
 */
export async function deleteDueAccount(
  app: App,
  origin: RequestOrigin | undefined,
  companyId: string,
  userId: string,
  changes: PendingChange[],
): Promise<boolean> {
  const due = changes.find((change) => change.kind === 'delete' && isDue(change, epochSeconds(app.clock)));
  if (!due) return false;
  try {
    await deleteAccount(app, origin, companyId, userId, { releaseClaims: false, completes: due });
  } catch (error) {
    // Cancelled meanwhile, or refused (the last active admin): the account stays. Deleted meanwhile: as landed.
    if (error instanceof ConditionsFailed && error.labels.includes('held')) return false;
    if (error instanceof AppError && error.errorName === 'UNAUTHORIZED') return true;
    if (error instanceof AppError && error.errorName === 'LAST_ADMIN') return false;
    throw error;
  }
  return true;
}
