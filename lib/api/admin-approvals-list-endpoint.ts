import { approvalsListBody } from '../admin/approvals-list-input.js';
import { approvalsListResult } from '../admin/approvals-list-result.js';
import type { Endpoint } from '../http/endpoint.js';
import { recordSessionUse, staffCall } from './grant-parts.js';
import { staffSessionRule } from './staff-session-rule.js';

export const adminApprovalsListEndpoint = {
  operationId: 'adminApprovalsList',
  method: 'POST',
  path: '/wallet/v3/admin/approvals/list',
  summary: 'What awaits a second admin’s approval (admin)',
  tag: 'admin',
  description: (config) =>
    'The grants (a role asked through employees/role, a change of the security settings asked through company/update) ' +
    'and the recoveries (users/phone/recover) of the company that await another admin’s approval, oldest first, each ' +
    'within its 72 hours; one cancelled, approved, replaced or void since is left out. Each names who asked: that ' +
    `employee cannot approve it. Recorded as approvals_list. ${staffSessionRule(config, 'the admin role')}`,
  auth: 'required',
  body: approvalsListBody,
  result: approvalsListResult,
  errors: ['FORBIDDEN', 'PHONE_NOT_VERIFIED'],
  examples: {
    request: { reason: 'ticket 4713: morning review' },
    result: {
      grants: [
        {
          grant_id: '0b6e2f4a8c1d3e5f7a9b0c2d4e6f8a1b',
          kind: 'role',
          requested_by: '9a8b7c6d5e4f30211203f4e5d6c7b8a9',
          requested_at: 1767312000,
          approve_by: 1767571200,
          user_id: '5f1c7a2b9d3e4f60718293a4b5c6d7e8',
          role: 'admin',
          from_role: 'support',
        },
      ],
      recoveries: [
        {
          change_id: '3c1e5a7b9d2f4a6c8e0b1d3f5a7c9e2b',
          user_id: '2b4d6f8a0c1e3a5c7e9b1d3f5a7c9e1d',
          phone_last4: '0143',
          started_by: '4e6a8c0b2d4f6a8c0e2b4d6f8a0c2e4b',
          started_at: 1767315600,
          approve_by: 1767574800,
        },
      ],
    },
  },
  // What awaits approval: the company's grants and listed recoveries, each recovery's change read.
  grants: {
    table: [
      ...staffCall,
      { actions: ['GetItem'], keys: ['user', 'pendingChange'] },
      { actions: ['Query'], keys: ['grant'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
