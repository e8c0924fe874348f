import { userPhoneChangeCancelBody } from '../account/phone-change-cancel-input.js';
import { userPhoneChangeCancelResult } from '../account/phone-change-cancel-result.js';
import type { Endpoint } from '../http/endpoint.js';

export const userPhoneChangeCancelEndpoint = {
  operationId: 'userPhoneChangeCancel',
  method: 'POST',
  path: '/wallet/v3/user/phone/change/cancel',
  summary: 'Cancel the token user’s pending phone change',
  tag: 'account',
  description: () =>
    'Cancels the phone change that phone/change made pending (a session begun by OTP login). Any live session of the user may ' +
    'cancel it, however it began. A security notification (event 10) is written and the event user.phone_change_cancelled ' +
    'follows. A change_id that is not the user’s pending change (unknown, another user’s, replaced by a newer request, already ' +
    'cancelled, completed, or void): 404 code 6 naming change_id.',
  auth: 'required',
  body: userPhoneChangeCancelBody,
  result: userPhoneChangeCancelResult,
  errors: ['NOT_FOUND'],
  examples: {
    request: { change_id: '6f1c0b7e9a2d4c3b8e5f7a1d2c4b6e8f' },
    result: { message: 'Phone number change cancelled' },
  },
} as const satisfies Endpoint;
