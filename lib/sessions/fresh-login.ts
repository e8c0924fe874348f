import type { App } from '../app-context.js';
import type { Principal } from '../call.js';
import { epochSeconds } from '../clock.js';
import { AppError, ErrorCodes } from '../errors.js';

// Fresh proof of the account holder (API contract 3.11): a change that gives the account away
// (deletion) wants a session that began by OTP or PIN login a short while ago, not a token
// that may have been lying on a lost phone for days.

/** How recent the login must be, in seconds: 10 minutes. */
export const FRESH_LOGIN_SECONDS = 600;

/** 400 code 14 on the Authorization: the session did not begin by a login recent enough; `detail` says how recent. */
export function staleLogin(detail: string): AppError {
  return new AppError('PHONE_NOT_VERIFIED', {
    detail: 'a fresh login is required',
    fields: [{ code: ErrorCodes.PHONE_NOT_VERIFIED.code, field: 'authorization', detail }],
  });
}

/** Whether the session began by OTP or PIN login less than `seconds` ago. */
export function loggedInWithin(app: Pick<App, 'clock'>, principal: Principal, seconds: number): boolean {
  const session = principal.session;
  return (
    (session?.began === 'otp' || session?.began === 'pin' || session?.began === 'passkey') &&
    epochSeconds(app.clock) - session.beganAt < seconds
  );
}

/** Refuses (400 code 14) a session that did not begin by OTP or PIN login under FRESH_LOGIN_SECONDS ago. */
export function requireFreshLogin(app: Pick<App, 'clock'>, principal: Principal): void {
  if (!loggedInWithin(app, principal, FRESH_LOGIN_SECONDS)) {
    throw staleLogin('log in again by OTP or PIN: this needs a session begun by one under 10 minutes ago');
  }
}
