import { employeeRoleBody } from '../admin/employee-role-input.js';
import { employeeRoleResult } from '../admin/employee-role-result.js';
import type { Endpoint } from '../http/endpoint.js';
import { ROLE, recordSessionUse, staffCall } from './grant-parts.js';
import { staffSessionRule } from './staff-session-rule.js';

export const adminEmployeeRoleEndpoint = {
  operationId: 'adminEmployeeRole',
  method: 'POST',
  path: '/wallet/v3/admin/employees/role',
  summary: 'Give an employee a back-office role, or take it away (admin)',
  tag: 'admin',
  description: (config) =>
    'An admin of the company sets the role of one of its active employees: "support" (search, view and act on ' +
    'users), "admin" (also enable users, approve recoveries and grants, set roles and the company’s settings) or ' +
    '"none". A role that gives power (none to support, none or support to admin) takes two admins: it answers ' +
    'pending 1 with a grant_id and approve_by, and the employee has it once another admin approves it with ' +
    'employees/approve within 72 hours. A role that takes power away (to none, admin to support) is set at once ' +
    '(pending 0). The company’s last active admin keeps the role (409 code 21). Recorded as role_grant or role. ' +
    staffSessionRule(config, 'the admin role', { fresh: true }),
  auth: 'required',
  body: employeeRoleBody,
  result: employeeRoleResult,
  errors: ['FORBIDDEN', 'PHONE_NOT_VERIFIED', 'NOT_FOUND', 'LAST_ADMIN'],
  examples: {
    request: { user_id: '5f1c7a2b9d3e4f60718293a4b5c6d7e8', role: 'support', reason: 'ticket 4711: new support agent' },
    result: {
      message: 'Role asked: another admin approves it (employees/approve) before approve_by, or it is void',
      user_id: '5f1c7a2b9d3e4f60718293a4b5c6d7e8',
      role: 'support',
      pending: 1,
      grant_id: '0b6e2f4a8c1d3e5f7a9b0c2d4e6f8a1b',
      approve_by: 1767571200,
    },
  },
  // The back office (API contract 3.14): reads the acting employee's role on every call, and writes
  // the record of every action in the company's log and the user's partition.
  // A role that takes power away, set at once (its seat given up with one fewer admin); a role that
  // gives power, asked as a grant another admin approves (adminEmployeesApprove).
  grants: {
    table: [
      ...staffCall,
      { actions: ['GetItem'], keys: ['user'] },
      // The role alone of an employee's record, with who gave it and since when (its condition reads the type and status).
      { actions: ['UpdateItem'], keys: ['user'], attributes: ROLE },
      { actions: ['UpdateItem'], keys: ['adminCount'] },
      { actions: ['DeleteItem'], keys: ['adminSeat'] },
      { actions: ['PutItem'], keys: ['staffAction', 'grant'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
