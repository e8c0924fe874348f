import { NOTIFICATION_PREFIX, SESSION_PREFIX, UNREAD_COUNT_PREFIX, userKey } from '../../../lib/store/keys.js';
import { referralCountIn } from '../../../lib/store/referral-store.js';
import { claimCheck } from '../claim-check.js';
import { sessionIdOf } from '../in-process-service.js';
import { phoneChangeCheck } from '../phone-change-check.js';
import { sessionCheck } from '../session-check.js';
import { identityProblems, type StoredItem } from '../table-snapshot.js';
import type { ChaosContext } from './context.js';

// The checks of the table once the faults are off and every ambiguous request has its outcome,
// beside each flow's own (a deletion stored, a device no longer listed): what holds whatever was
// asked, then each account answered against its stored user.

/**
 * Every phone and email claim held by the user whose record has it and who holds claims, and every
 * user's claimed (tests/harness/claim-check.ts); no partial user; no live session of a user who is
 * not active, nor one begun by an OTP login to a number its user has left
 * (tests/harness/session-check.ts); no pending phone change or its index item left half-done, and
 * no device or older session left to a user a recovery moved (tests/harness/phone-change-check.ts);
 * no phone twice; no user stored that was never answered (but the run's employees).
 * Returns the users stored.
 */
export function checkTable(ctx: ChaosContext, items: StoredItem[]): StoredItem[] {
  const { report, wrong, companyId } = ctx;
  const claims = claimCheck(items, companyId);
  report.claims = {
    phoneClaims: claims.phoneClaims,
    emailClaims: claims.emailClaims,
    holders: claims.holders,
    problems: claims.problems.length,
  };
  for (const problem of claims.problems) wrong(`claims: ${problem}`);
  for (const problem of identityProblems(items, companyId)) wrong(`stored: ${problem}`);
  const sessions = sessionCheck(items, companyId, ctx.answered, ctx.service.clock.now() / 1000);
  report.sessions = { otpLogins: sessions.otpLogins, live: sessions.live, problems: sessions.problems.length };
  for (const problem of sessions.problems) wrong(`sessions: ${problem}`);
  const changes = phoneChangeCheck(items, companyId, ctx.answered.recoveries, ctx.service.clock.now() / 1000);
  report.pendingChanges.table = { live: changes.live, recovered: changes.recovered, problems: changes.problems.length };
  for (const problem of changes.problems) wrong(`phone changes: ${problem}`);
  const users = items.filter((item) => item.sk === 'PROFILE');
  const phones = new Set(users.map((user) => `${user.phone_e164}#${user.user_type}`));
  if (phones.size !== users.length) wrong(`${users.length} users hold ${phones.size} phones`);
  const answeredIds = new Set(ctx.registered.map((account) => account.userId));
  for (const user of users)
    if (!answeredIds.has(user.user_id) && !ctx.employees.has(user.user_id)) wrong(`user ${user.user_id} is stored but was never answered`);
  return users;
}

/**
 * Each account answered is stored, with the phone and email last answered, exact referral and
 * unread counts, and its token still working unless it was logged out.
 */
export async function checkAccounts(ctx: ChaosContext, items: StoredItem[], users: StoredItem[]) {
  const { registered, wrong, companyId } = ctx;
  for (const account of registered) {
    const user = users.find((item) => item.user_id === account.userId);
    if (!user) wrong(`user ${account.userId} was answered 200 but is not stored`);
    if (user && !account.uncertain && (user.phone_number !== account.phone || (user.email ?? undefined) !== account.email))
      wrong(`user ${account.userId} stores ${user.phone_number} and ${user.email}, answered ${account.phone} and ${account.email}`);
    const referred = registered.filter((other) => other.referredBy === account.userId).length;
    // The count is summed over the user's item and its count shards (lib/store/referral-store.ts).
    const counted = referralCountIn(items.filter((item) => item.pk === userKey(companyId, account.userId).pk));
    if (user && counted !== referred) wrong(`user ${account.userId} counts ${counted} referrals, not ${referred}`);
    // The unread count, kept by the writes that change it, equals the unread notifications stored.
    const own = items.filter((item) => item.pk === userKey(companyId, account.userId).pk);
    const unreadCounted = own
      .filter((item) => item.sk.startsWith(UNREAD_COUNT_PREFIX))
      .reduce((sum, item) => sum + Number(item.unread ?? 0), 0);
    const unreadStored = own.filter((item) => item.sk.startsWith(NOTIFICATION_PREFIX) && Number(item.is_read) === 0).length;
    if (unreadCounted !== unreadStored)
      wrong(`user ${account.userId} counts ${unreadCounted} unread, but ${unreadStored} are stored unread`);
    if (!account.loggedOut) {
      const list = await ctx.call('referralProgram', undefined, { Authorization: `Token ${account.token}` }, 'GET');
      if (list.status !== 200) {
        // What the table says of that session and its user, so the finding can be traced.
        const sk = `${SESSION_PREFIX}${sessionIdOf(`Token ${account.token}`)}`;
        const session = own.find((item) => item.sk === sk);
        const traced = session
          ? `its session began ${session.began ?? '?'} (acr ${session.acr ?? '?'}), ended ${session.ended_reason ?? 'no'}`
          : 'its session is not stored';
        wrong(`user ${account.userId}'s live token did not work after the run (${traced}; user status ${user?.status_id})`, list);
      }
    }
  }
}
