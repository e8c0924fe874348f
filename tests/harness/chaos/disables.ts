import { setStatusEndingSessions } from '../../../lib/sessions/end-sessions.js';
import { UserStatus } from '../../../lib/store/user-status.js';
import type { ChaosContext } from './context.js';

// An operator disables a user, as user:disable does (status 2, every session ended in the same
// transaction; ChaosContext.disableUser): one in ten accounts at most, so the other flows keep
// theirs. One that fails under faults is run again once they are off (disabling a disabled user
// changes nothing).

export function disables(ctx: ChaosContext) {
  const { report, pendingDisables } = ctx;

  const disable = () =>
    ctx.withAccount(
      () => report.disabled + pendingDisables.length < ctx.registered.length / 10,
      async (account) => void (await ctx.disableUser(account)),
    );

  /** Each disable that failed under faults (the race's too), run again: it must succeed now. */
  const afterFaults = async () => {
    for (const account of pendingDisables) {
      report.disablesRetried++;
      try {
        await setStatusEndingSessions(ctx.service.app, ctx.companyId, account.userId, UserStatus.DISABLED);
        report.disabled++;
      } catch (error) {
        ctx.wrong(`disabling user ${account.userId} failed with faults off: ${(error as Error).message}`);
      }
    }
  };

  return { disable, afterFaults };
}
