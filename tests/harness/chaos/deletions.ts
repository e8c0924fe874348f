import { randomUUID } from 'node:crypto';
import { UserStatus } from '../../../lib/store/user-status.js';
import type { StoredItem } from '../table-snapshot.js';
import type { ChaosContext } from './context.js';

// The holder asks for the account's deletion (contract 3.11) on a fresh PIN login on the device bound
// at registration (a strong session: an OTP login's would only hold it, 3.15 second reading): status
// 4 with its erase_after, its sessions ended and devices removed at once. One in ten accounts at most;
// from the ask on no flow uses the account. One answered 503 is sent again with its key after the
// faults; then the table must hold every deletion answered, and no other.

export function accountDeletions(ctx: ChaosContext) {
  const { report, wrong, call, service, deletions, pendingDeletions } = ctx;

  const deleteAccount = () =>
    ctx.withAccount(
      (account) =>
        account.device !== undefined &&
        !account.pinLocked &&
        account.quietAfter <= service.clock.now() &&
        deletions.length + pendingDeletions.length < ctx.registered.length / 10,
      async (account) => {
        account.quietAfter = service.clock.now() + ctx.interval * 1000;
        if (!(await ctx.freshPinLogin(account, 3))) return;
        const key = randomUUID();
        const authorization = `Token ${account.token}`;
        // Sent once: one that committed before its 503 ended the session it is sent with, so its
        // retry answers 401 (retried after the faults, where that is taken as done).
        const answer = await call('userDelete', {}, { Authorization: authorization, 'Idempotency-Key': key });
        if (ctx.isAmbiguous(answer)) pendingDeletions.push({ account, key, authorization });
        else if (answer.status === 200) deletions.push({ account, eraseAfter: answer.body.data.erase_after });
        else return wrong('a deletion on a fresh PIN login was refused', answer);
        account.deleted = true;
        account.loggedOut = true;
        account.device = undefined;
      },
    );

  /**
   * Each ambiguous deletion (the race's too), retried with its key: 401 when its first run
   * committed (ending the session it sends). The table decides, in `check`.
   */
  const afterFaults = async () => {
    for (const { account, key, authorization } of pendingDeletions) {
      report.deletionsRetried++;
      const answer = await ctx.untilDefinite(() => call('userDelete', {}, { Authorization: authorization, 'Idempotency-Key': key }), 20);
      if (answer.status === 200) deletions.push({ account, eraseAfter: answer.body.data.erase_after });
      else if (answer.status === 401) deletions.push({ account });
      else wrong('an ambiguous deletion retried with its key neither deleted nor found it done', answer);
    }
  };

  /** Deletions answered are stored (status 4, the erase_after answered), and no other user is deleted. */
  const check = (users: StoredItem[]) => {
    report.deletions = deletions.length;
    const deletedIds = new Set(deletions.map(({ account }) => account.userId));
    for (const { account, eraseAfter } of deletions) {
      const user = users.find((item) => item.user_id === account.userId);
      if (Number(user?.status_id) !== UserStatus.DELETION_REQUESTED)
        wrong(`user ${account.userId} was deleted but is of status ${user?.status_id}`);
      else if (eraseAfter !== undefined && user?.erase_after !== eraseAfter)
        wrong(`user ${account.userId} was answered erase_after ${eraseAfter}, stores ${user?.erase_after}`);
    }
    for (const user of users)
      if (Number(user.status_id) === UserStatus.DELETION_REQUESTED && !deletedIds.has(user.user_id))
        wrong(`user ${user.user_id} is deleted but no deletion was answered`);
  };

  return { deleteAccount, afterFaults, check };
}
