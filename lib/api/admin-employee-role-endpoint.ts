import { employeeRoleBody } from '../admin/employee-role-input.js';
import { employeeRoleResult } from '../admin/employee-role-result.js';
import { duration, type Endpoint } from '../http/endpoint.js';

export const adminEmployeeRoleEndpoint = {
  operationId: 'adminEmployeeRole',
  method: 'POST',
  path: '/wallet/v3/admin/employees/role',
  summary: 'Give an employee a back-office role, or take it away (admin)',
  tag: 'admin',
  description: ({ admin }) =>
    'An admin of the company sets the role of one of its active employees: "support" (search, view and act on ' +
    'users), "admin" (also enable users, approve recoveries, set roles and the company’s settings) or "none". ' +
    'The company’s last admin keeps the role (409 code 21). Needs an employee token with the admin role whose ' +
    `session began by OTP or PIN login under ${duration(admin.sessionSeconds)} ago, and a reason, kept in the ` +
    'record of the action.',
  auth: 'required',
  body: employeeRoleBody,
  result: employeeRoleResult,
  errors: ['FORBIDDEN', 'PHONE_NOT_VERIFIED', 'NOT_FOUND', 'LAST_ADMIN'],
  examples: {
    request: { user_id: '5f1c7a2b9d3e4f60718293a4b5c6d7e8', role: 'support', reason: 'ticket 4711: new support agent' },
    result: { message: 'Role set', user_id: '5f1c7a2b9d3e4f60718293a4b5c6d7e8', role: 'support' },
  },
} as const satisfies Endpoint;
