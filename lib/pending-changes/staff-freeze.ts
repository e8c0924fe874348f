import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { changeFreezePut } from '../store/change-freeze-store.js';
import { isLive, queryPendingChanges } from '../store/pending-change-store.js';
import type { LabelledItem } from '../store/transactions.js';
import { pendingChangeEndWrites } from './change-cancel.js';

// Staff who strip the owner's defences start a freeze (API contract 3.15, second reading): a support
// employee removing a settled device, ending sessions or disabling the user may be a SIM swapper's
// accomplice (or their dupe), leaving the owner nothing strong to cancel with. So in the same
// transaction as the action, every live change the user asked for from an SMS-strength session ends
// (reason support_freeze, told by the action's own notice 8 and user.change_cancelled), and new held
// changes are refused for STAFF_FREEZE_SECONDS (held-change.ts: 403 code 5, needs strong). A strong
// session still commits at once, and a recovery (via support, strong) is left to staff.

export const STAFF_FREEZE_SECONDS = 72 * 3600;

/**
 * The writes of a freeze: each live SMS-strength change of the user ended, and the freeze put; all
 * labelled `label`, so a change ended or replaced meanwhile fails the transaction under it.
 */
export async function staffFreezeWrites<Label extends string>(
  app: Pick<App, 'table' | 'clock'>,
  companyId: string,
  userId: string,
  label: Label,
): Promise<LabelledItem<Label>[]> {
  const now = epochSeconds(app.clock);
  const changes = await queryPendingChanges(app.table, companyId, userId);
  const ends = changes
    .filter((change) => isLive(change, now) && change.acr !== 'strong' && change.via === 'user')
    .flatMap((change) =>
      pendingChangeEndWrites(app, companyId, userId, change, { reason: 'support_freeze', requestRef: undefined, quiet: true }),
    );
  return [
    ...ends.map(({ item }) => ({ label, item })),
    { label, item: changeFreezePut(app.table, companyId, userId, { now, until: now + STAFF_FREEZE_SECONDS }) },
  ];
}
