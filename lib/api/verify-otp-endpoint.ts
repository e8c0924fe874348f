import { duration, type Endpoint, sampleTokens, sampleUserId } from '../http/endpoint.js';
import { verifyOtpBody } from '../otp/verify-otp-input.js';
import { verifyOtpResult } from '../otp/verify-otp-result.js';
import { END_CHANGE, keepAnswers, readCompanyAndSession, recordUseAndEndSessions, spendProofs } from './grant-parts.js';

export const verifyOtpEndpoint = {
  operationId: 'verifyOtp',
  method: 'POST',
  path: '/wallet/v3/auth/verify_otp',
  summary: 'Verify a one-time code',
  tag: 'auth',
  description: ({ otp, verificationTokenTtlSeconds }) =>
    'Checks a code sent by login_phone. A right login code (otp_type 1) answers a session, like ' +
    'registration, and marks the user phone-verified; other types answer verified: 1 and a verification_token, ' +
    `the proof that this phone received the code (single use, valid ${duration(verificationTokenTtlSeconds)}), which registration ` +
    'takes as phone_verification_token. A phone-verification code verified with the token of the user holding the ' +
    `phone marks that user phone-verified. A code is single use and dies after ${otp.maxAttempts} wrong tries; a phone ` +
    `locks (code 11) after ${otp.failuresPerPhone} wrong codes in ${duration(otp.failureWindowSeconds)}, whatever the codes; ` +
    `${otp.verifiesPerAddress || 'unlimited'} attempts per ${duration(otp.verifyAddressWindowSeconds)} per source address (429; a company may have its own).`,
  // The size its figures in docs/performance.md were measured at.
  memorySize: 1024,
  auth: 'optional',
  body: verifyOtpBody,
  result: verifyOtpResult,
  errors: ['FORBIDDEN', 'OTP_INVALID', 'OTP_EXPIRED', 'OTP_ATTEMPTS_EXCEEDED', 'TOO_MANY_REQUESTS'],
  answersCredential: true,
  examples: {
    request: { dial_code: '+1', phone_number: '2025550143', user_type: 2, otp_type: 1, otp: '483920' },
    result: { message: 'Logged in successfully', ...sampleTokens, user_id: sampleUserId },
  },
  grants: {
    table: [
      spendProofs,
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['phoneClaim'] },
      // Tries taken before a code is compared (the address, the code, the phone's failures), a code
      // used up, and the user's side of a session.
      { actions: ['UpdateItem'], keys: ['addressLimit', 'otp', 'phoneFailures', 'user'] },
      // A login that completes a pending phone change (contract 3.11): the user and the change read; the
      // new claim taken, the old released, the change and its index deleted, the old number's code
      // deleted (the user's record and sessions as above); a change whose number was taken marked void.
      // A number taken from a holder who never proved it (contract 6): their record and sessions as
      // above, their email claim freed.
      { actions: ['GetItem'], keys: ['user', 'pendingChange'] },
      { actions: ['PutItem'], keys: ['phoneClaim'] },
      { actions: ['DeleteItem'], keys: ['phoneClaim', 'otp', 'pendingChange', 'phoneChangeIndex', 'emailClaim'] },
      END_CHANGE,
      // A phone's try given back that leaves its window empty (an OTP login no longer opens a locked PIN: contract 3.15).
      { actions: ['DeleteItem'], keys: ['phoneFailures'] },
      { actions: ['PutItem'], keys: ['session', 'phoneProof', 'phoneFailures'] },
      // A device bound with the login: the user's list, the binding, its notice; the least recently
      // used device removed with its sessions when the user has the most allowed.
      { actions: ['Query'], keys: ['userDevice', 'session'] },
      { actions: ['GetItem'], keys: ['deviceIndex'] },
      { actions: ['UpdateItem'], keys: ['deviceIndex', 'userDevice', 'unreadCount'] },
      { actions: ['PutItem'], keys: ['notification'] },
      { actions: ['DeleteItem'], keys: ['deviceIndex', 'userDevice'] },
      // A recovery's completion removes every passkey (contract 3.15, second reading): each, its claim, the count.
      { actions: ['Query'], keys: ['userPasskey'] },
      { actions: ['DeleteItem'], keys: ['userPasskey', 'passkeyCredential'] },
      { actions: ['UpdateItem'], keys: ['userPasskeyCount'], attributes: ['passkey_count'] },
      recordUseAndEndSessions,
    ],
    secret: true,
    // The warning to the old number of a completed phone change.
    queue: 'send',
    signingKeys: 'sign',
  },
} as const satisfies Endpoint;
