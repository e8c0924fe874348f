import type { App } from '../app-context.js';
import { fieldError } from '../errors.js';
import { staffFreezeWrites } from '../pending-changes/staff-freeze.js';
import { accountBusy, changeEndingSessions } from '../sessions/end-sessions.js';
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
// unknown, ended or other user's sid is 404 code 6 and records nothing. Either way the user's
// SMS-strength changes end and new held ones are frozen for 72 h (staff-freeze.ts, contract 3.15).

const MAX_ROUNDS = 3;

export async function userSessionsEnd(app: App, call: UserSessionsEndCall): Promise<UserSessionsEndResult> {
  const { companyId, userId, record, recorded } = await beginActionOnUser(app, call, 'sessions_end');
  if (call.body.sid !== undefined) {
    const key = sessionKey(companyId, userId, call.body.sid);
    const end = { reason: 'support', atMs: record.at_ms } as const;
    for (let round = 1; ; round++) {
      const freeze = await staffFreezeWrites(app, companyId, userId, 'freeze');
      try {
        await writeTransaction(app.table, [{ label: 'session', item: sessionEnd(app.table, key, end, true) }, ...freeze, ...recorded]);
        break;
      } catch (error) {
        if (!(error instanceof ConditionsFailed)) throw error;
        if (error.labels.includes('session')) throw fieldError('NOT_FOUND', 'sid', 'is no live session of this user');
        // A change of the user's ended or replaced meanwhile: read them again.
        if (round >= MAX_ROUNDS) throw accountBusy();
      }
    }
    auditStaffAction(app, call.origin, record, 'ended_one');
    return { message: 'Session ended', revoked: 1 };
  }
  const revoked = await changeEndingSessions(app, companyId, userId, 'support', async (_user, version) => [
    { label: 'user', item: userSessionsUnchanged(app.table, companyId, userId, version) },
    // A change ended or replaced meanwhile fails under `user`: the next round reads them again.
    ...(await staffFreezeWrites(app, companyId, userId, 'user')),
    ...recorded,
  ]);
  auditStaffAction(app, call.origin, record, 'ended_all');
  return { message: 'Every session ended', revoked };
}
