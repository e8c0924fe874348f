import { decodeJwt } from 'jose';
import type { App } from '../app-context.js';
import { inProbationWindow } from '../devices/device-settlement.js';
import { probationDevicesOf } from '../devices/devices.js';
import type { RequestOrigin } from '../observability/audit.js';
import { waitingChanges } from '../pending-changes/pending-change-list.js';
import { auditNotMe, endOtherSessions, type NotMeUndo } from '../security/not-me.js';
import type { SessionTokens } from '../sessions/access-tokens.js';
import { GrantRefused } from '../sessions/session-grant.js';
import { deviceHoldWrites, type UserDeviceRecord } from '../store/device-store.js';
import type { PendingChange } from '../store/pending-change-store.js';
import type { LabelledItem } from '../store/transactions.js';
import type { UserRecord } from '../store/user-store.js';
import { heldResetVoidWrites } from './held-pins.js';
import type { LoginPinResult } from './login-pin-result.js';

// What a strong login (a PIN on a settled device, or a passkey: contract 3.15) does because the
// owner is here, shared by both: it holds every device still in its probation window and voids a
// held reset of the login PIN, in the transaction that begins the session; and its answer, after
// "Not me" (not_me: 1) ended the other sessions, lists what still waits.

/** What a user holds beside the record, as the login read it. */
export interface HeldByUser {
  devices: UserDeviceRecord[];
  changes: PendingChange[];
}

/**
 * The owner's writes for the session's transaction, labelled `hold` and `void`: devices bound by a
 * code meanwhile wait for their approval, not for time, and a held reset of the login PIN ends.
 * Answers the changes it voids.
 */
export function ownerPresentWrites(
  app: App,
  user: UserRecord,
  held: HeldByUser,
  requestRef: string | undefined,
  now: number,
): { items: LabelledItem<string>[]; voided: PendingChange[] } {
  const items: LabelledItem<string>[] = [];
  for (const other of held.devices.filter((listed) => inProbationWindow(app.config, listed, user.user_type, now))) {
    items.push(
      ...deviceHoldWrites(app.table, user.company_id, user.user_id, other.device_key, now).map((item) => ({ label: 'hold', item })),
    );
  }
  const voids = heldResetVoidWrites(app, user, held.changes, 'login', { requestRef });
  items.push(...voids.map(({ item }) => ({ label: 'void', item })));
  return { items, voided: voids.length ? held.changes.filter((change) => change.kind === 'login_pin') : [] };
}

/**
 * Grants the session with the owner's writes; when only those were refused (a device on probation
 * removed or approved meanwhile, a held reset cancelled meanwhile), grants it again without them: the
 * owner's hold and void are for what is still there, and the login does not wait on them. Answers
 * the tokens and whether the owner's writes went in.
 */
export async function grantWithOwnerWrites(
  grant: (items: LabelledItem<string>[]) => Promise<SessionTokens>,
  items: LabelledItem<string>[],
): Promise<{ tokens: SessionTokens; ownerWritesKept: boolean }> {
  try {
    return { tokens: await grant(items), ownerWritesKept: true };
  } catch (error) {
    const racedOnly = error instanceof GrantRefused && error.labels.every((label: string) => label === 'hold' || label === 'void');
    if (!racedOnly) throw error;
    return { tokens: await grant(items.filter(({ label }) => label !== 'hold' && label !== 'void')), ownerWritesKept: false };
  }
}

/** The answer of a login that began: "Not me" finished first when it ran, then what waits and which devices are on probation. */
export async function loginAnswer(
  app: App,
  origin: RequestOrigin | undefined,
  user: UserRecord,
  begun: { tokens: SessionTokens; undo: NotMeUndo | undefined; held: HeldByUser; voided: PendingChange[]; now: number },
): Promise<LoginPinResult> {
  const { tokens, undo, held, voided, now } = begun;
  const owner = { companyId: user.company_id, userId: user.user_id };
  if (undo) {
    const keptSessionId = String(decodeJwt(tokens.token.token).sid);
    const revoked = await endOtherSessions(app, undo, { ...owner, keptSessionId });
    auditNotMe(app, origin, owner, {
      cancelled: undo.cancelled,
      revoked,
      devices_removed: undo.devicesRemoved,
      passkeys_removed: undo.passkeysRemoved,
    });
  }
  return {
    message: 'Logged in successfully',
    ...tokens,
    user_id: user.user_id,
    pending_changes: waitingChanges(
      held.changes.filter((change) => !voided.includes(change)),
      now,
    ),
    probation_devices: undo ? [] : probationDevicesOf(app.config, held.devices, user.user_type, now),
  };
}
