import type { App } from '../app-context.js';
import { fieldError } from '../errors.js';
import { changeEndingSessions } from '../sessions/end-sessions.js';
import { auditStaffAction } from '../staff/staff-actions.js';
import { sessionKey } from '../store/keys.js';
import { sessionEnd } from '../store/session-store.js';
import { ConditionsFailed, writeTransaction } from '../store/transactions.js';
import { userSessionsUnchanged } from '../store/user-store.js';
import { beginActionOnUser } from './action-target.js';
import type { UserSessionsEndCall } from './user-sessions-end-input.js';
import type { UserSessionsEndResult } from './user-sessions-end-result.js';

// POST /wallet/v3/admin/users/sessions/end (API contract 3.14): support ends one session of a user
// (a lost phone, a shared tablet) or all of them, with the reason `support` on each session.ended.
// The record of the action and notice 8 commit with the end itself. All: as a status change ends
// them (end-sessions.ts changeEndingSessions), conditional on no session granted since they were
// read, so every session granted before the answer is over. One: only while it is live, so an
// unknown, ended or other user's sid is 404 code 6 and records nothing.

export async function userSessionsEnd(app: App, call: UserSessionsEndCall): Promise<UserSessionsEndResult> {
  const { companyId, userId, record, recorded } = await beginActionOnUser(app, call, 'sessions_end');
  if (call.body.sid !== undefined) {
    const key = sessionKey(companyId, userId, call.body.sid);
    const end = { reason: 'support', atMs: record.at_ms } as const;
    try {
      await writeTransaction(app.table, [{ label: 'session', item: sessionEnd(app.table, key, end, true) }, ...recorded]);
    } catch (error) {
      if (error instanceof ConditionsFailed) throw fieldError('NOT_FOUND', 'sid', 'is no live session of this user');
      throw error;
    }
    auditStaffAction(app, call.origin, record, 'ended_one');
    return { message: 'Session ended', revoked: 1 };
  }
  const revoked = await changeEndingSessions(app, companyId, userId, 'support', async (_user, version) => [
    { label: 'user', item: userSessionsUnchanged(app.table, companyId, userId, version) },
    ...recorded,
  ]);
  auditStaffAction(app, call.origin, record, 'ended_all');
  return { message: 'Every session ended', revoked };
}
