import { userDeleteBody, userDeleteResult } from '../account/delete-input.js';
import type { Endpoint } from '../http/endpoint.js';
import {
  DELETION_USER,
  END_CHANGE,
  holdChangeWithNotice,
  keepAndRecallAnswers,
  readCompanyAndSession,
  recordUseAndEndSessions,
} from './grant-parts.js';

export const userDeleteEndpoint = {
  operationId: 'userDelete',
  method: 'POST',
  path: '/wallet/v3/user/delete',
  summary: 'Delete the token user’s account (erased after ACCOUNT_ERASE_AFTER_DAYS)',
  tag: 'account',
  description: () =>
    'Deletes the token user’s account. From a strong session proven under STEP_UP_MAX_AGE_SECONDS ago (a PIN login ' +
    'on a settled device, a passkey, or a step-up) it is deleted at once; an older strong session is refused (403 ' +
    'code 5, data.needs strong_fresh: step up). From an SMS-strength session (registration, OTP login, a PIN login ' +
    'on a device on probation) begun by a login under 10 minutes ago (else 400 code 14) the deletion is a held ' +
    'change (kind delete): it answers pending, change_id and effective_at, the number is warned by SMS, it shows in ' +
    'pending_changes and any session of the user may cancel it (user/changes/cancel); once due it lands at the ' +
    'user’s next profile read or PIN login (401 there), and the phone and email stay claimed until erasure. An ' +
    'employee’s deletion is never held: it needs a fresh strong session. A deletion in place: the user’s status ' +
    'becomes 4 (deletion requested), every session ends (their access and refresh tokens answer 401), every device ' +
    'is removed, every other pending change is void, and (deleted at once) the phone and email are free for a new ' +
    'registration; no login code goes to the phone any more. At erase_after the account is erased: names, email, ' +
    'phone, birth date, image, location, devices, notifications, hashes and PINs are deleted, and a record with the ' +
    'user id, type, status 5 and dates is all that remains. Until then an operator may restore it. An employee who ' +
    'is their company’s last active admin is refused (409 code 21): another admin first.',
  auth: 'required',
  endsOwnSession: true,
  body: userDeleteBody,
  bodyRequired: false,
  result: userDeleteResult,
  errors: ['PHONE_NOT_VERIFIED', 'FORBIDDEN', 'LAST_ADMIN'],
  examples: {
    request: {},
    result: { message: 'Account deleted', erase_after: 1769904000 },
  },
  // A deletion: the user's status and erasure time (and no other field of the record), every session
  // and device gone, the phone and email claims freed, the user in the company's due list.
  grants: {
    table: [
      keepAndRecallAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user', 'phoneClaim', 'emailClaim'] },
      { actions: ['Query'], keys: ['session', 'userDevice', 'pendingChange'] },
      { actions: ['UpdateItem'], keys: ['user'], attributes: DELETION_USER },
      { actions: ['PutItem'], keys: ['erasureDue', 'erasureCompany'] },
      // Every live pending change ends with the account (void), a phone change's index by the new number freed.
      END_CHANGE,
      { actions: ['DeleteItem'], keys: ['userDevice', 'deviceIndex', 'phoneClaim', 'emailClaim', 'phoneChangeIndex'] },
      // An employee's deletion keeps the company's count of active admins (contract 3.14): an admin's
      // seat given up with one fewer, any other employee's seat checked absent.
      { actions: ['DeleteItem', 'ConditionCheckItem'], keys: ['adminSeat'] },
      { actions: ['UpdateItem'], keys: ['adminCount'] },
      // From an SMS-strength session the deletion waits (contract 3.15, second reading), with its notice
      // and SMS; the claims of a held one are kept (the phone's marked); the held one deleted as it lands.
      ...holdChangeWithNotice,
      recordUseAndEndSessions,
    ],
    secret: true,
    queue: 'send',
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
