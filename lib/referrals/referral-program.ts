import type { App } from '../app-context.js';
import { AppError } from '../errors.js';
import { LISTED_NOTIFICATION_FIELDS, type ListedNotification } from '../notifications/listed-notification.js';
import { NotificationType } from '../notifications/notification-record.js';
import { type CursorScope, decodeCursor, encodeCursor } from '../paging/list-cursor.js';
import { queryNotifications } from '../store/notification-store.js';
import { getUserWithReferralCount } from '../store/referral-store.js';
import { UserType } from '../users/user-types.js';
import type { ReferralProgramCall } from './referral-program-input.js';
import type { ReferralProgramResult } from './referral-program-result.js';

/**
 * Whose list the caller asks for and may read: user_id from the query string, else from a JSON
 * body (as the seed's sample sends it), else the token's own user. Only an employee of the
 * company may read another user's list.
 */
function listOwner({ query, body, principal }: ReferralProgramCall): string {
  const userId = query.user_id ?? body.user_id ?? principal.userId;
  if (userId !== principal.userId && principal.userType !== UserType.EMPLOYEE) {
    throw new AppError('FORBIDDEN', { detail: "only an employee may read another user's referrals" });
  }
  return userId;
}

/**
 * A page of a user's referral notifications, newest first, with their code and count (contract
 * 3.4): the count is the sum of its shards, read with the user in one Query. Security notices
 * share the partition but are not listed here.
 */
export async function referralProgram(app: App, call: ReferralProgramCall): Promise<ReferralProgramResult> {
  const { query: request, company } = call;
  const companyId = company.company_id;
  const userId = listOwner(call);
  const scope: CursorScope = { list: 'referrals', companyId, userId };
  const afterSortKey = request.cursor ? await decodeCursor(app.keys, scope, request.cursor) : undefined;

  // The user and the page are independent reads: made side by side.
  const [found, page] = await Promise.all([
    getUserWithReferralCount(app.table, companyId, userId),
    queryNotifications(app.table, companyId, userId, {
      fields: LISTED_NOTIFICATION_FIELDS,
      limit: request.limit,
      afterSortKey,
      filter: { type: NotificationType.REFERRAL },
    }),
  ]);
  if (!found) throw new AppError('NOT_FOUND', { detail: 'no such user' });

  return {
    notification: page.notifications as ListedNotification[],
    referral_code: found.user.referral_code,
    referral_count: found.referralCount,
    next_cursor: page.lastSortKey ? await encodeCursor(app.keys, scope, page.lastSortKey) : null,
  };
}
