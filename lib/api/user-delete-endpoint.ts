import { userDeleteBody, userDeleteResult } from '../account/delete-input.js';
import type { Endpoint } from '../http/endpoint.js';

export const userDeleteEndpoint = {
  operationId: 'userDelete',
  method: 'POST',
  path: '/wallet/v3/user/delete',
  summary: 'Delete the token user’s account (erased after ACCOUNT_ERASE_AFTER_DAYS)',
  tag: 'account',
  description: () =>
    'Deletes the token user’s account: it needs a session begun by OTP or PIN login under 10 minutes ago (else 400 ' +
    'code 14). In one write the user’s status becomes 4 (deletion requested), every session ends (their access and ' +
    'refresh tokens answer 401), every device is removed, and the phone and email are free for a new registration at ' +
    'once; no login code goes to the phone any more. At erase_after the account is erased: names, email, phone, birth ' +
    'date, image, location, devices, notifications, hashes and PINs are deleted, and a record with the user id, type, ' +
    'status 5 and dates is all that remains. Until then an operator may restore it. An employee who is their ' +
    'company’s last active admin is refused (409 code 21): another admin first.',
  auth: 'required',
  endsOwnSession: true,
  body: userDeleteBody,
  bodyRequired: false,
  result: userDeleteResult,
  errors: ['PHONE_NOT_VERIFIED', 'LAST_ADMIN'],
  examples: {
    request: {},
    result: { message: 'Account deleted', erase_after: 1769904000 },
  },
} as const satisfies Endpoint;
