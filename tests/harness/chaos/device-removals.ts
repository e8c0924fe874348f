import { randomUUID } from 'node:crypto';
import { USER_DEVICE_PREFIX, userDeviceKey } from '../../../lib/store/keys.js';
import { itemId, type StoredItem } from '../table-snapshot.js';
import type { ChaosContext, Registered } from './context.js';

// A user removes their device (contract 3.6): the sessions bound to it end (the token too, when
// it is one of them). At most one in four devices still bound, so PIN logins keep some. The device
// is forgotten at once (a 503 may have removed it); one answered 503 parks the account until it is
// sent again with its key after the faults. Then no device answered removed is still listed.

export function deviceRemovals(ctx: ChaosContext) {
  const { report, wrong, call } = ctx;
  const removals: { account: Registered; deviceKey: string }[] = [];
  const pendingRemovals: { account: Registered; deviceKey: string; key: string; authorization: string }[] = [];

  const removeDevice = () =>
    ctx.withAccount(
      (account) =>
        account.device !== undefined &&
        !account.loggedOut &&
        removals.length + pendingRemovals.length < ctx.registered.filter((each) => each.device).length / 4,
      async (account) => {
        const deviceKey = account.device!.deviceKey;
        const key = randomUUID();
        const authorization = `Token ${account.token}`;
        // Sent once, as a deletion is: a removal that committed before its 503 may have ended the
        // session it is sent with (its token on the device), and its retry then answers 401.
        const answer = await call('devicesRemove', { device_key: deviceKey }, { Authorization: authorization, 'Idempotency-Key': key });
        account.device = undefined;
        if (ctx.isAmbiguous(answer)) {
          pendingRemovals.push({ account, deviceKey, key, authorization });
          account.parked = true;
          account.loggedOut = true;
        } else if (answer.status === 200 && answer.body.data?.pending === 1) {
          // A settled device's removal asked from an SMS-strength session waits (contract 3.15): not removed yet.
          report.deviceRemovalsHeld = (report.deviceRemovalsHeld ?? 0) + 1;
        } else if (answer.status === 200) {
          removals.push({ account, deviceKey });
          if (account.tokenOnDevice) account.loggedOut = true;
        } else wrong('removing the account’s own device was refused', answer);
      },
    );

  /**
   * Each ambiguous removal, retried with its key: 401 when its first run committed (ending the
   * session it sends), 404 when it removed the device. The table decides, in `check`.
   */
  const afterFaults = async () => {
    for (const removal of pendingRemovals) {
      report.deviceRemovalsRetried++;
      const answer = await ctx.untilDefinite(
        () =>
          call(
            'devicesRemove',
            { device_key: removal.deviceKey },
            { Authorization: removal.authorization, 'Idempotency-Key': removal.key },
          ),
        20,
      );
      if (answer.status === 200 && answer.body.data?.pending === 1) report.deviceRemovalsHeld = (report.deviceRemovalsHeld ?? 0) + 1;
      else if ([200, 401, 404].includes(answer.status)) removals.push(removal);
      else wrong('an ambiguous device removal retried with its key neither removed it nor found it gone', answer);
      removal.account.parked = false;
    }
  };

  /** Devices answered removed are listed no more. */
  const check = (items: StoredItem[]) => {
    report.devicesRemoved = removals.length;
    const listed = new Set(items.filter((item) => item.sk.startsWith(USER_DEVICE_PREFIX)).map(itemId));
    for (const { account, deviceKey } of removals) {
      if (listed.has(itemId(userDeviceKey(ctx.companyId, account.userId, deviceKey))))
        wrong(`user ${account.userId}'s device ${deviceKey} was answered removed but is still listed`);
    }
  };

  return { removeDevice, afterFaults, check };
}
