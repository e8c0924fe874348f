import { employeesApproveBody } from '../admin/employees-approve-input.js';
import { employeesApproveResult } from '../admin/employees-approve-result.js';
import { duration, type Endpoint } from '../http/endpoint.js';
import { GRANT_APPROVAL, ROLE, recordSessionUse, staffCall } from './grant-parts.js';
import { staffSessionRule } from './staff-session-rule.js';

export const adminEmployeesApproveEndpoint = {
  operationId: 'adminEmployeesApprove',
  method: 'POST',
  path: '/wallet/v3/admin/employees/approve',
  summary: 'Approve a role grant another admin asked for (admin)',
  tag: 'admin',
  description: (config) =>
    'Another admin than the one who asked approves a grant of employees/role (support or admin): the employee has ' +
    'the role from now on. Refused (403 code 5) to the admin who asked, to an admin who registered the employee ' +
    'who asked or the one the grant is for, or asked for the role of the one who asked (or was made by them), and ' +
    `while the approver has been admin, or the one who asked registered or given their role, less than ${duration(config.admin.approverMinSeconds)}. ` +
    'A grant unknown, of another company, approved already or void (72 hours unapproved): 404 code 6; for an employee ' +
    'no longer active or whose role changed since: 409 code 23. Recorded as role_approve. ' +
    staffSessionRule(config, 'the admin role', { fresh: true }),
  auth: 'required',
  body: employeesApproveBody,
  result: employeesApproveResult,
  errors: ['FORBIDDEN', 'PHONE_NOT_VERIFIED', 'NOT_FOUND', 'STATE_CONFLICT'],
  examples: {
    request: { grant_id: '0b6e2f4a8c1d3e5f7a9b0c2d4e6f8a1b', reason: 'ticket 4712: second admin for the night shift' },
    result: {
      message: 'Role granted',
      grant_id: '0b6e2f4a8c1d3e5f7a9b0c2d4e6f8a1b',
      user_id: '5f1c7a2b9d3e4f60718293a4b5c6d7e8',
      role: 'admin',
    },
  },
  // Another admin approves a role grant: the grant marked approved (once, while unexpired), the role
  // set, an admin's seat taken with one more in the count; the approver rules read the one who asked.
  grants: {
    table: [
      ...staffCall,
      { actions: ['GetItem'], keys: ['user', 'grant'] },
      { actions: ['UpdateItem'], keys: ['grant'], attributes: GRANT_APPROVAL },
      { actions: ['UpdateItem'], keys: ['user'], attributes: ROLE },
      { actions: ['UpdateItem'], keys: ['adminCount'] },
      { actions: ['PutItem'], keys: ['adminSeat', 'staffAction'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
