import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { audit } from '../observability/audit.js';
import { requireFreshStrong } from '../sessions/session-strength.js';
import { deviceSettleWrites, getDevice } from '../store/device-store.js';
import { ConditionsFailed, writeTransaction } from '../store/transactions.js';
import { UserType } from '../users/user-types.js';
import { isSettled } from './device-settlement.js';
import type { DevicesApproveCall } from './devices-approve-input.js';
import type { DevicesApproveResult } from './devices-approve-result.js';

const noSuchDevice = () => new AppError('NOT_FOUND', { detail: 'no such device of this user' });

/**
 * The owner settles a device on probation (API contract 3.15, second reading): from a strong session
 * proven under STEP_UP_MAX_AGE_SECONDS ago, the device (the user's new phone) is settled at once and
 * its next PIN login is strong. An employee's device settles only by another admin (3.14): 403 code 5.
 * A device that is not the user's: 404 code 6. One already settled answers as approved.
 */
export async function devicesApprove(app: App, { body, principal, origin }: DevicesApproveCall): Promise<DevicesApproveResult> {
  requireFreshStrong(app, principal, 'approving a device');
  const { companyId, userId } = principal;
  if (principal.userType === UserType.EMPLOYEE) {
    throw new AppError('FORBIDDEN', {
      detail: 'an employee’s device is settled by another admin (POST /wallet/v3/admin/employees/devices/approve)',
    });
  }
  const device = await getDevice(app.table, companyId, body.device_key);
  if (device?.user_id !== userId) throw noSuchDevice();
  if (!isSettled(app.config, device, principal.userType, epochSeconds(app.clock))) {
    try {
      const items = deviceSettleWrites(app.table, companyId, userId, body.device_key);
      await writeTransaction(
        app.table,
        items.map((item) => ({ label: 'device', item })),
      );
    } catch (error) {
      if (error instanceof ConditionsFailed) throw noSuchDevice();
      throw error;
    }
    audit(app, origin, 'device_approved', { company_id: companyId, user_id: userId, outcome: 'settled' });
  }
  return { message: 'Device approved: its PIN logins are strong', device_key: body.device_key };
}
