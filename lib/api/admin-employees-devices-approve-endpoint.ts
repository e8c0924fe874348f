import { employeeDeviceApproveBody, employeeDeviceApproveResult } from '../admin/employee-device-approve-input.js';
import { duration, type Endpoint } from '../http/endpoint.js';
import { recordSessionUse, staffCall } from './grant-parts.js';
import { staffSessionRule } from './staff-session-rule.js';

export const adminEmployeesDevicesApproveEndpoint = {
  operationId: 'adminEmployeesDevicesApprove',
  method: 'POST',
  path: '/wallet/v3/admin/employees/devices/approve',
  summary: 'Settle an employee’s device (another admin)',
  tag: 'admin',
  description: (config) =>
    'An employee’s device never settles by time: another admin settles it here (user_id, device_key, reason), and ' +
    'the employee’s PIN logins on it are strong from then on. Refused (403 code 5) to the employee themself, to an admin ' +
    `who has been admin less than ${duration(config.admin.approverMinSeconds)}, who registered the employee or asked for ` +
    'their role, or whom the employee registered or made admin. A device not of an active employee of the company: 404 ' +
    'code 6. One already settled answers as approved and records nothing. Recorded as device_approve. ' +
    staffSessionRule(config, 'the admin role', { fresh: true }),
  auth: 'required',
  body: employeeDeviceApproveBody,
  result: employeeDeviceApproveResult,
  errors: ['FORBIDDEN', 'PHONE_NOT_VERIFIED', 'NOT_FOUND'],
  examples: {
    request: {
      user_id: '5f1c7a2b9d3e4f60718293a4b5c6d7e8',
      device_key: '3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c',
      reason: 'ticket 4713: new laptop',
    },
    result: {
      message: 'Device approved: its PIN logins are strong',
      user_id: '5f1c7a2b9d3e4f60718293a4b5c6d7e8',
      device_key: '3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c',
    },
  },
  // Another admin settles an employee's device (contract 3.14, second reading): its two items'
  // probation removed; the approver rules read the employee.
  grants: {
    table: [
      ...staffCall,
      { actions: ['GetItem'], keys: ['user', 'deviceIndex'] },
      { actions: ['UpdateItem'], keys: ['deviceIndex', 'userDevice'], attributes: ['probation_since', 'probation_held'] },
      { actions: ['PutItem'], keys: ['staffAction'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
