import type { App } from '../app-context.js';
import type { RequestKey } from '../call.js';
import { deleteAccount } from '../deletion/account-deletion.js';
import { AppError } from '../errors.js';
import { audit } from '../observability/audit.js';
import { holdChange } from '../pending-changes/held-change.js';
import { requireFreshLogin } from '../sessions/fresh-login.js';
import { isStrong, requireFreshStrong } from '../sessions/session-strength.js';
import type { TextDispatch } from '../sms/text-dispatch.js';
import { UserStatus } from '../store/user-status.js';
import { getUser } from '../store/user-store.js';
import { UserType } from '../users/user-types.js';
import type { UserDeleteCall, UserDeleteResult } from './delete-input.js';

// The route's part of a deletion (API contract 3.11 and 3.15): at once, or held. The deletion itself,
// and the landing of a held one (which the profile read and the PIN login run, without the hold's
// SMS path in their bundles), are delete.ts.

/**
 * user/delete (API contract 3.11 and 3.15, second reading). A strong session proven under
 * STEP_UP_MAX_AGE_SECONDS ago deletes at once, its claims freed; an older strong one is refused (403
 * code 5, needs strong_fresh: step up). An SMS-strength session begun by a login under 10 minutes ago
 * (a SIM swapper's OTP login is one) holds the deletion (kind `delete`) for PHONE_CHANGE_HOLD_HOURS,
 * warned to the number and cancellable from any session; once due it lands at the user's next
 * profile read or PIN login (deleteDueAccount), and the phone and email stay claimed until
 * erase_after, so whoever holds the number cannot register it afresh meanwhile.
 */
export async function userDelete(app: App, call: UserDeleteCall & RequestKey, texts: TextDispatch): Promise<UserDeleteResult> {
  const { principal, origin } = call;
  // An employee's deletion is never held: it moves the company's admin seats (contract 3.14), so staff step up.
  if (isStrong(principal) || principal.userType === UserType.EMPLOYEE) {
    requireFreshStrong(app, principal, 'deleting the account');
    return deleteAccount(app, origin, principal.companyId, principal.userId, { releaseClaims: true });
  }
  requireFreshLogin(app, principal);
  const user = await getUser(app.table, principal.companyId, principal.userId, true);
  if (user?.status_id !== UserStatus.ACTIVE) throw new AppError('UNAUTHORIZED', { detail: 'the user is not active' });
  const held = await holdChange(app, call, texts, {
    kind: 'delete',
    details: {},
    warnPhoneE164: user.phone_e164,
    message: 'Account deletion pending',
  });
  audit(app, origin, 'account_deleted', {
    company_id: principal.companyId,
    user_id: principal.userId,
    outcome: 'held',
    change_id: held.change_id,
  });
  return held;
}
