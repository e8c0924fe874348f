import type { App } from '../app-context.js';
import { auditStaffAction, staffActionRecord } from '../staff/staff-actions.js';
import { requireStaff } from '../staff/staff-gate.js';
import { countLookup } from '../staff/staff-lookups.js';
import { getReferralCodeOwner } from '../store/referral-store.js';
import { writeTransaction } from '../store/transactions.js';
import { getEmailClaimHolder, getPhoneClaim, getUser, type UserRecord } from '../store/user-store.js';
import type { UserSearchCall } from './user-search-input.js';
import type { UserSearchResult, UserSummary } from './user-search-result.js';

// POST /wallet/v3/admin/users/search (API contract 3.14): the one user an exact key names, as a
// summary with the phone and email masked. Each search is counted against the employee's hour
// first (ADMIN_LOOKUPS_PER_HOUR, 429 code 12 past it, staff-lookups.ts), then recorded, found or not.

/** a***@example.com: the first letter and the domain of an email. */
export function maskEmail(email: string | undefined): string | null {
  if (!email) return null;
  const at = email.lastIndexOf('@');
  return `${email.slice(0, 1)}***${email.slice(at)}`;
}

/** The summary a search shows, and the view's masked identity. */
export function userSummaryOf(user: UserRecord): UserSummary {
  return {
    user_id: user.user_id,
    user_type: user.user_type,
    first_name: user.first_name,
    last_name: user.last_name,
    // An erased user's shell (status 5) keeps no phone.
    phone_last4: (user.phone_number ?? '').slice(-4),
    email_masked: maskEmail(user.email),
    phone_verified: user.phone_verified,
    status_id: user.status_id,
    created_date: user.created_at,
  };
}

/** The id of the user an exact key names, if any. */
async function userIdOf(app: App, companyId: string, body: UserSearchCall['body']): Promise<string | undefined> {
  if (body.user_id) return body.user_id;
  if (body.phone) return (await getPhoneClaim(app.table, companyId, body.phone, body.user_type))?.user_id;
  if (body.email) return getEmailClaimHolder(app.table, companyId, body.email, body.user_type);
  if (body.referral_code) return getReferralCodeOwner(app.table, companyId, body.referral_code);
  return undefined;
}

export async function userSearch(app: App, call: UserSearchCall): Promise<UserSearchResult> {
  const { companyId } = call.principal;
  const staff = await requireStaff(app, call.principal, ['support', 'admin']);
  await countLookup(app, staff, companyId);
  const userId = await userIdOf(app, companyId, call.body);
  const user = userId ? await getUser(app.table, companyId, userId) : undefined;
  // A user id names a user of either type; the other keys were looked up with the type asked.
  const found = user && (call.body.user_id !== undefined || user.user_type === call.body.user_type) ? user : undefined;
  const { record, writes } = await staffActionRecord(app, staff.chain, {
    companyId,
    actorId: staff.userId,
    action: 'search',
    userId: found?.user_id,
    reason: call.body.reason,
  });
  await writeTransaction(app.table, writes);
  auditStaffAction(app, call.origin, record, found ? 'found' : 'none');
  return { users: found ? [userSummaryOf(found)] : [] };
}
