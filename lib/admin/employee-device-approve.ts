import type { App } from '../app-context.js';
import { epochSeconds, HOUR_SECONDS } from '../clock.js';
import { isSettled } from '../devices/device-settlement.js';
import { AppError } from '../errors.js';
import { auditStaffAction, staffActionRecord } from '../staff/staff-actions.js';
import { type EmployeeRecord, requireStaff } from '../staff/staff-gate.js';
import { deviceSettleWrites, getDevice } from '../store/device-store.js';
import { ConditionsFailed, writeTransaction } from '../store/transactions.js';
import { UserStatus } from '../store/user-status.js';
import { getUser } from '../store/user-store.js';
import { UserType } from '../users/user-types.js';
import { roleSince } from './approver-rules.js';
import type { EmployeeDeviceApproveCall, EmployeeDeviceApproveResult } from './employee-device-approve-input.js';

// POST /wallet/v3/admin/employees/devices/approve (API contract 3.14 and 3.15, second reading): an
// employee's device never settles by time, so the back office is never one OTP login away from a
// strong session. Another admin settles it, from a fresh strong session, under the approver rules
// that apply to one person's device (approver-rules.ts): never the employee themself, nor an admin
// made less than ADMIN_APPROVER_MIN_HOURS ago, nor one who registered the employee or asked for their
// role, nor one the employee registered or made admin (a puppet of either is the same person twice).
// One transaction settles the device's two items and records the action (device_approve).

const refused = (detail: string) => new AppError('FORBIDDEN', { detail });
const noSuchDevice = () => new AppError('NOT_FOUND', { detail: 'no such device of an employee of this company' });

export async function employeeDeviceApprove(app: App, call: EmployeeDeviceApproveCall): Promise<EmployeeDeviceApproveResult> {
  const staff = await requireStaff(app, call.principal, ['admin'], { fresh: true });
  const { companyId } = call.principal;
  const { user_id: userId, device_key: deviceKey } = call.body;
  if (userId === staff.userId) throw refused('an employee’s device is settled by another admin, never by the employee');
  const [employee, device] = await Promise.all([
    getUser(app.table, companyId, userId, true) as Promise<EmployeeRecord | undefined>,
    getDevice(app.table, companyId, deviceKey),
  ]);
  if (employee?.user_type !== UserType.EMPLOYEE || device?.user_id !== userId) throw noSuchDevice();
  if (employee.status_id !== UserStatus.ACTIVE) throw noSuchDevice();
  const now = epochSeconds(app.clock);
  const min = app.config.admin.approverMinSeconds;
  if (now - roleSince(staff.record) < min) throw refused(`an admin approves nothing in their first ${min / HOUR_SECONDS} hours as admin`);
  if (employee.cretaed_by === staff.userId || employee.role_granted_by === staff.userId) {
    throw refused('you registered this employee or asked for their role: another admin approves');
  }
  if (staff.record.cretaed_by === userId || staff.record.role_granted_by === userId) {
    throw refused('this employee registered you or asked for your role: another admin approves');
  }
  const answer = { message: 'Device approved: its PIN logins are strong', user_id: userId, device_key: deviceKey };
  if (isSettled(app.config, device, UserType.EMPLOYEE, now)) return answer;
  const { record, writes } = await staffActionRecord(app, staff.chain, {
    companyId,
    actorId: staff.userId,
    action: 'device_approve',
    userId,
    reason: call.body.reason,
    details: { device_key: deviceKey },
  });
  try {
    await writeTransaction<string>(app.table, [
      ...deviceSettleWrites(app.table, companyId, userId, deviceKey).map((item) => ({ label: 'device', item })),
      ...writes,
    ]);
  } catch (error) {
    // Removed meanwhile.
    if (error instanceof ConditionsFailed && error.labels.includes('device')) throw noSuchDevice();
    throw error;
  }
  auditStaffAction(app, call.origin, record, 'settled');
  return answer;
}
