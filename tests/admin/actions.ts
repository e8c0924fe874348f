// What the tests of the back office's actions share: calling an action, and finding its record,
// its entry in the company's log and the user's notice 8.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { NotificationEvent } from '../../lib/notifications/notification-record.js';
import { type ItemKey, STAFF_ACTION_PREFIX, userKey } from '../../lib/store/keys.js';
import { queryPartitionPrefix } from '../../lib/store/partition-query.js';
import { queryStaffChain } from '../../lib/store/staff-store.js';
import { noticeEvents } from '../devices/device-helpers.js';
import { type Answer, type InProcessService, invoke } from '../helpers.js';

export type ActionName = 'adminUsersSessionsEnd' | 'adminUsersStatus' | 'adminUsersDevicesRemove' | 'adminUsersRestore';

export const ACTION_PATHS: Record<ActionName, string> = {
  adminUsersSessionsEnd: '/wallet/v3/admin/users/sessions/end',
  adminUsersStatus: '/wallet/v3/admin/users/status',
  adminUsersDevicesRemove: '/wallet/v3/admin/users/devices/remove',
  adminUsersRestore: '/wallet/v3/admin/users/restore',
};

/** Calls an action of the back office with an employee's token (and an Idempotency-Key, if given). */
export function act(
  service: InProcessService,
  company: Company,
  name: ActionName,
  authorization: string,
  body: Record<string, unknown>,
  idempotencyKey?: string,
): Promise<Answer> {
  return invoke(service.handlers[name], {
    path: ACTION_PATHS[name],
    headers: {
      CompanyID: company.company_id,
      Authorization: authorization,
      ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
    },
    body,
  });
}

/** Any route of the back office (or another) by its handler's name, with an employee's token. */
export function post(
  service: InProcessService,
  company: Company,
  name: keyof InProcessService['handlers'],
  authorization: string,
  body: Record<string, unknown>,
): Promise<Answer> {
  return invoke(service.handlers[name], {
    path: `/${name}`,
    headers: { CompanyID: company.company_id, Authorization: authorization },
    body,
  });
}

/** The records of back-office actions on a user, in the user's partition. */
export async function staffRecordsOn(service: InProcessService, company: Company, userId: string): Promise<Record<string, unknown>[]> {
  return queryPartitionPrefix(service.app.table, userKey(company.company_id, userId).pk, STAFF_ACTION_PREFIX);
}

/** How many notices 8 ("changed by support") the user's list holds. */
export async function supportNotices(service: InProcessService, company: Company, userId: string): Promise<number> {
  return (await noticeEvents(service, company, userId)).filter((event) => event === NotificationEvent.CHANGED_BY_SUPPORT).length;
}

/**
 * The action was recorded once with this reason, by this employee, on this user: in the user's
 * partition and in the company's log of the day; and the user got one notice 8 with it.
 */
export async function expectRecorded(
  service: InProcessService,
  company: Company,
  entry: { userId: string; actorId: string; action: string; reason: string },
  noticesBefore: number,
): Promise<void> {
  const onUser = (await staffRecordsOn(service, company, entry.userId)).filter((record) => record.reason === entry.reason);
  expect(onUser).toEqual([expect.objectContaining({ actor_id: entry.actorId, action: entry.action, user_id: entry.userId })]);
  const logged = (await queryStaffChain(service.app.table, company.company_id)).filter(
    (record) => record.action_id === onUser[0]!.action_id,
  );
  expect(logged).toEqual([expect.objectContaining({ actor_id: entry.actorId, action: entry.action, reason: entry.reason })]);
  expect(await supportNotices(service, company, entry.userId)).toBe(noticesBefore + 1);
}

/** An item as stored, read strongly consistently. */
export async function storedItem(service: InProcessService, key: ItemKey): Promise<Record<string, any> | undefined> {
  const { Item } = await service.app.table.client.send(
    new GetCommand({ TableName: service.app.table.name, Key: key, ConsistentRead: true }),
  );
  return Item;
}
