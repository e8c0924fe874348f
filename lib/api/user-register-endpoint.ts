import { duration, type Endpoint, sampleTokens, sampleUserId } from '../http/endpoint.js';
import { userRegisterBody } from '../registration/user-register-input.js';
import { userRegisterResult } from '../registration/user-register-result.js';
import {
  appendStaffRecord,
  keepAnswers,
  readCompanyAndSession,
  recordUseAndEndSessions,
  spendProofs,
  USE_PHONE_PROOF,
} from './grant-parts.js';

export const userRegisterEndpoint = {
  operationId: 'userRegister',
  method: 'POST',
  path: '/wallet/v3/auth/user_register',
  summary: 'Register a user',
  tag: 'auth',
  description: (config) =>
    'Registers a customer (user_type 2, no token needed) or an employee (user_type 1, needs an ' +
    "employee's token). Answers a session token (valid " +
    duration(config.tokenTtlSeconds) +
    "), the user id and the user's own referral code. " +
    'phone_verification_token (the verification_token of a verified otp_type 2 code for this phone) proves the phone: ' +
    'the user is stored phone-verified and the proof is used up; a phone held by a user who never proved it is ' +
    "taken over (that user's status becomes 3 and their sessions end). A company may require the proof for " +
    'customers registering themselves (code 14 without it). ' +
    'A customer registered with an employee’s token gets no device (device_public_key is ignored) and both PINs marked ' +
    'to be set: login_pin and transaction_authorization answer 403 code 5 with needs pin_setup until the user sets ' +
    'each by reset_pin from their own OTP login. ' +
    'Optional fields sent as "" or null count as absent; unknown fields are ignored. ' +
    '`location_poin` is accepted as an alias of `location_point`.',
  // Hashing the password and both PINs is CPU-bound: 1,769 MB is one full vCPU, which cuts a
  // registration from about 1.4 s to 0.8 s for the same GB-seconds (docs/performance.md).
  memorySize: 1769,
  auth: 'optional',
  body: userRegisterBody,
  result: userRegisterResult,
  errors: ['FORBIDDEN', 'ALREADY_REGISTERED', 'INVALID_REFERRAL_CODE', 'PHONE_NOT_VERIFIED'],
  answersCredential: true,
  examples: {
    request: {
      dial_code: '+1',
      phone_number: '2025550143',
      user_type: 2,
      first_name: 'Ada',
      last_name: 'Lovelace',
      account_number_prefix: 'AC',
      password: 'correct horse battery',
      email: 'ada@example.com',
      login_pin: '2580',
      transaction_pin: '1397',
      status_id: 1,
      birth_date: 631152000000,
      image: 'https://example.com/ada.png',
      kyc_status: 1,
      country_id: 'US',
      kyc_process_status: '1',
      location_point: '23.0225,72.5714',
      device_type: 1,
      device_id: 'device-1',
      parent_user_id: '',
      device_unique_id: 'unique-1',
      referral_code: '',
      cretaed_by: '',
    },
    result: { message: 'User registered successfully', ...sampleTokens, user_id: sampleUserId, referral_code: '94MQE4QQ' },
  },
  grants: {
    table: [
      spendProofs,
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user', 'phoneClaim', 'referralCode'] },
      { actions: ['PutItem'], keys: ['user', 'session', 'notification', 'phoneClaim', 'emailClaim', 'referralCode'] },
      // A shard of the referrer's count, and their unread count with the referral notification.
      { actions: ['UpdateItem'], keys: ['referralCount', 'unreadCount'] },
      // The reclaimed holder's status, the parent's existence.
      { actions: ['UpdateItem', 'ConditionCheckItem'], keys: ['user'] },
      // The new user's first device: its index and list items.
      { actions: ['UpdateItem'], keys: ['deviceIndex', 'userDevice'] },
      // A phone proof used up; a reclaimed holder's email claim and sessions.
      { actions: ['DeleteItem'], keys: ['emailClaim'] },
      USE_PHONE_PROOF,
      // The holder's devices and passkeys: a live holder is never displaced by a reclaim (contract 3.15; a passkey used in 90 days keeps it live).
      { actions: ['Query'], keys: ['session', 'userDevice', 'userPasskey'] },
      // An employee's registration by an admin is a staff action (contract 3.14, round 6): its record.
      ...appendStaffRecord,
      { actions: ['PutItem'], keys: ['staffAction'] },
      recordUseAndEndSessions,
    ],
    secret: true,
    signingKeys: 'sign',
  },
} as const satisfies Endpoint;
