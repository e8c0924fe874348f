import type { App } from '../app.js';
import type { Company } from '../companies/companies.js';
import { AppError } from '../errors.js';
import type { Principal } from '../sessions/access-tokens.js';
import { queryNotifications } from '../store/referral-store.js';
import { getUser } from '../store/user-store.js';
import { UserType } from '../users/user-types.js';
import { LISTED_NOTIFICATION_FIELDS, type ListedNotification } from './notifications.js';
import { decodeCursor, encodeCursor } from './referral-cursor.js';
import type { ReferralProgramQuery } from './referral-program-input.js';
import type { ReferralProgramResult } from './referral-program-result.js';

/** Whose list the caller may read: their own, or any user's of the company for an employee. */
function listOwner(principal: Principal, requestedUserId: string | undefined): string {
  const userId = requestedUserId ?? principal.userId;
  if (userId !== principal.userId && principal.userType !== UserType.EMPLOYEE) {
    throw new AppError('FORBIDDEN', { detail: "only an employee may read another user's referrals" });
  }
  return userId;
}

/** A page of a user's referral notifications, newest first, with their code and count (contract 3.4). */
export async function referralProgram(
  app: App,
  company: Company,
  principal: Principal,
  request: ReferralProgramQuery & { bodyUserId?: string | undefined },
): Promise<ReferralProgramResult> {
  const companyId = company.company_id;
  const userId = listOwner(principal, request.user_id ?? request.bodyUserId);
  const afterSortKey = request.cursor ? await decodeCursor(app.keys, companyId, userId, request.cursor) : undefined;

  // The user and the page are independent reads: made side by side.
  const [user, page] = await Promise.all([
    getUser(app.table, companyId, userId),
    queryNotifications(app.table, companyId, userId, { fields: LISTED_NOTIFICATION_FIELDS, limit: request.limit, afterSortKey }),
  ]);
  if (!user) throw new AppError('NOT_FOUND', { detail: 'no such user' });

  return {
    notification: page.notifications as ListedNotification[],
    referral_code: user.referral_code,
    referral_count: user.referral_count ?? 0,
    next_cursor: page.lastSortKey ? await encodeCursor(app.keys, companyId, userId, page.lastSortKey) : null,
  };
}
