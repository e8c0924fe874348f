import { phoneCancelBody } from '../admin/phone-change-id-input.js';
import { phoneCancelResult } from '../admin/phone-recovery-result.js';
import { duration, type Endpoint } from '../http/endpoint.js';

export const adminUsersPhoneCancelEndpoint = {
  operationId: 'adminUsersPhoneCancel',
  method: 'POST',
  path: '/wallet/v3/admin/users/phone/cancel',
  summary: 'Cancel a user’s pending phone change or recovery (support, admin)',
  tag: 'admin',
  description: ({ admin }) =>
    'Cancels the user’s live pending phone change named by change_id: a recovery (awaiting approval or running) or the user’s ' +
    'own change, such as one a caller reports as not theirs. Notices 10 and 8 in the user’s list, the event ' +
    'user.phone_change_cancelled if it was running. Not the user’s live change: 404 code 6 naming change_id. Needs an employee ' +
    `token with a role whose session began by OTP or PIN login under ${duration(admin.sessionSeconds)} ago, and a reason.`,
  auth: 'required',
  body: phoneCancelBody,
  result: phoneCancelResult,
  errors: ['FORBIDDEN', 'PHONE_NOT_VERIFIED', 'NOT_FOUND'],
  examples: {
    request: {
      user_id: '5f1c7a2b9d3e4f60718293a4b5c6d7e8',
      change_id: '6f1c0b7e9a2d4c3b8e5f7a1d2c4b6e8f',
      reason: 'call 8830: the customer did not ask for this',
    },
    result: { message: 'Phone number change cancelled', change_id: '6f1c0b7e9a2d4c3b8e5f7a1d2c4b6e8f' },
  },
} as const satisfies Endpoint;
