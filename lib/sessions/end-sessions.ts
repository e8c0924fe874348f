import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import type { ItemKey } from '../store/keys.js';
import { endSessions, querySessions, type SessionEndReason, sessionEnd } from '../store/session-store.js';
import { ConditionsFailed, type LabelledItem, writeTransaction } from '../store/transactions.js';
import type { UserStatus } from '../store/user-status.js';
import { getPhoneClaim, getUser, phoneClaimStatus, type UserRecord, userStatusChange } from '../store/user-store.js';

/** Sessions ended in the same transaction as the change they follow; beyond this they are ended once it has committed. */
export const MAX_SESSIONS_IN_TRANSACTION = 80;
/** DynamoDB's limit of items in one transaction. */
const MAX_TRANSACTION_ITEMS = 100;
const MAX_ROUNDS = 5;

/** A change refused round after round by the user's own activity (logins, devices): the client sends it again with its key. */
export const accountBusy = () =>
  new AppError('SERVICE_UNAVAILABLE', { detail: 'the account kept changing meanwhile', headers: { 'retry-after': '1' } });

/**
 * A change to a user that ends all their sessions with it, such as a status change: the change
 * and the end of every session are one transaction, conditional on no session having been
 * granted since the user was read (session_version, which a phone or email change bumps too); if
 * one was, it is read again. A session is granted only to an active user (session-store.ts
 * sessionGrant), so once the change commits no new one appears, and the sessions that did not fit
 * in its transaction are ended then: never before, so a refused change ends nothing. Returns how
 * many sessions ended.
 */
export async function changeEndingSessions(
  app: Pick<App, 'table' | 'clock'>,
  companyId: string,
  userId: string,
  reason: SessionEndReason,
  change: (user: UserRecord, sessionVersion: number) => Promise<LabelledItem<string>[]>,
): Promise<number> {
  for (let round = 1; ; round++) {
    // The user first, then the sessions: a session granted after this read changes the version the change conditions on.
    const user = await getUser(app.table, companyId, userId, true);
    if (!user) throw new AppError('NOT_FOUND', { detail: 'no such user' });
    const sessions = (await querySessions(app.table, companyId, userId)).map(({ key }) => key);
    const items = await change(user, user.session_version ?? 0);
    const room = Math.max(0, Math.min(MAX_SESSIONS_IN_TRANSACTION, MAX_TRANSACTION_ITEMS - items.length));
    try {
      await writeTransaction(app.table, [...items, ...sessionEnds(app, sessions.slice(0, room), reason)]);
    } catch (error) {
      const raced = error instanceof ConditionsFailed && error.labels.includes('user');
      if (!raced) throw error;
      if (round >= MAX_ROUNDS) throw accountBusy();
      continue;
    }
    const later = sessions.slice(room);
    if (later.length) await endSessions(app.table, later, { reason, atMs: app.clock.now() });
    return sessions.length;
  }
}

function sessionEnds(app: Pick<App, 'table' | 'clock'>, sessions: ItemKey[], reason: SessionEndReason): LabelledItem<'session'>[] {
  const end = { reason, atMs: app.clock.now() };
  return sessions.map((key) => ({ label: 'session', item: sessionEnd(app.table, key, end) }));
}

/** What else a status change asks: the status it must come from, and more items for its transaction. */
export interface StatusChangeTerms {
  /** Only from this status; another one is refused with the error `refused` makes (read, and conditioned on). */
  from?: { status: UserStatus; refused: (user: UserRecord) => Error };
  /** Items of the same transaction, such as the back office's record of the action. */
  items?: LabelledItem<string>[];
}

/** Sets a user's status (on the user and on the phone claim they hold) and ends every session of theirs (user:disable sets 2). */
export async function setStatusEndingSessions(
  app: Pick<App, 'table' | 'clock'>,
  companyId: string,
  userId: string,
  statusId: UserStatus,
  terms: StatusChangeTerms = {},
): Promise<number> {
  return changeEndingSessions(app, companyId, userId, 'disabled', async (user, version) => {
    // A status changed meanwhile fails the condition below, and the round after reads it here.
    if (terms.from && user.status_id !== terms.from.status) throw terms.from.refused(user);
    return [...(await statusChangeItems(app, companyId, user, statusId, version, terms.from?.status)), ...(terms.items ?? [])];
  });
}

/** The writes of a status change: the user (from the status read, if given) and the phone claim they hold. */
export async function statusChangeItems(
  app: Pick<App, 'table' | 'clock'>,
  companyId: string,
  user: UserRecord,
  statusId: UserStatus,
  sessionVersion: number,
  fromStatus?: UserStatus,
): Promise<LabelledItem<'user'>[]> {
  const userId = user.user_id;
  const claim = await getPhoneClaim(app.table, companyId, user.phone_e164, user.user_type, true);
  return [
    {
      label: 'user',
      item: userStatusChange(app.table, companyId, userId, statusId, sessionVersion, epochSeconds(app.clock), fromStatus),
    },
    // A reclaimed user no longer holds the claim: it is the new holder's to keep.
    ...(claim?.user_id === userId
      ? [{ label: 'user' as const, item: phoneClaimStatus(app.table, companyId, user.phone_e164, user.user_type, userId, statusId) }]
      : []),
  ];
}
