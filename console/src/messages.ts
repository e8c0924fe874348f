import { WalletAuthError } from '../../client/src/index.js';
import { wait } from './format.js';

// What the page says for each refusal the API gives (WalletAuthError's name: the contract's
// section 4), in the words an agent on a call needs: what happened and what to do.

const MESSAGES: Record<string, string> = {
  BAD_REQUEST: 'The service refused what was sent.',
  COMPANY_ID_INVALID: 'The company ID must be 32 hexadecimal characters.',
  COMPANY_NOT_FOUND: 'There is no such company, or it is disabled. Check the company ID.',
  UNAUTHORIZED: 'Your session has ended. Sign in again.',
  FORBIDDEN: 'Your role may not do this.',
  NOT_FOUND: 'Not found: the user, device, session or change is not there (any more).',
  ALREADY_REGISTERED: 'That phone number, email or passkey is held by another account (or already yours).',
  OTP_INVALID: 'That login code is not right. Check it and try again.',
  OTP_EXPIRED: 'That login code has expired, or none was sent. Send a new code.',
  OTP_ATTEMPTS_EXCEEDED: 'Too many wrong codes. Send a new code, or wait if sending is refused.',
  TOO_MANY_REQUESTS: 'Too many requests for now.',
  PAYLOAD_TOO_LARGE: 'What was sent is too large.',
  PHONE_NOT_VERIFIED: 'The back office needs a sign-in from the last hours. Sign out, and sign in again with your PIN.',
  SMS_DESTINATION_NOT_ALLOWED: 'The company sends no SMS to that number: its country is not allowed, or it is not a mobile line.',
  SERVICE_UNAVAILABLE: 'The service is busy or a dependency is down. Try again in a moment.',
  PIN_INVALID: 'Wrong PIN.',
  PIN_LOCKED: 'The login PIN is locked after too many wrong tries. Sign in with a code: that unlocks it.',
  IDEMPOTENCY_KEY_REUSED: 'The same request is still at work. Try again in a moment.',
  LAST_ADMIN:
    "The company's last active admin cannot lose the role, be disabled or deleted. Make another employee admin (or enable one) first.",
  DEVICE_LIMIT: 'You hold as many passkeys as an account may (10): remove one under Your passkeys first.',
  STATE_CONFLICT: 'The account is not in a state that allows this.',
  INTERNAL_ERROR: 'The service failed. Try again; if it keeps failing, tell the on-call engineer.',
  NETWORK_ERROR: 'No answer from the service. Check the connection and try again.',
};

/**
 * A 403 for want of a stronger session (API contract 3.15, data.needs): what to do about it. A
 * code sent by SMS reaches whoever holds the number, so the back office takes a PIN sign-in on a
 * browser this employee remembered (its key cannot be copied off it), not a code alone.
 */
const NEEDS: Record<string, string> = {
  strong:
    'This needs a strong sign-in, not a code alone. Sign out; sign in by code with "Remember this browser" ticked (on your own desk computer); then sign in with your Login PIN. A passkey sign-in is strong too.',
  strong_fresh:
    'This needs a strong sign-in from the last few minutes. Sign out and sign in again with your passkey or Login PIN, then do it again.',
};

/** A refusal of the page's own, shown as it is. */
export class PageMessage extends Error {}

/**
 * What the browser's WebAuthn refusals mean (a DOMException's name): the agent closed its dialog or
 * holds no passkey for this company, or this page's address is not one the company's passkeys are
 * for (its webauthn rp_id and origins, API contract 3.16).
 */
const WEBAUTHN_REFUSALS: Record<string, string> = {
  NotAllowedError: 'No passkey was used: the browser’s passkey dialog was closed or timed out, or it holds no passkey for this company.',
  SecurityError:
    'This console’s address is not one your company’s passkeys are for (its webauthn rp_id and origins). Sign in with a code, and tell an admin.',
  InvalidStateError: 'This device already holds a passkey of your account.',
  NotSupportedError: 'This browser or device cannot make a passkey the service accepts.',
};

/** The page's sentence for a failure, and what the answer said beyond its code (each field's problem, tries left, when to retry). */
export function failureText(error: unknown): string {
  if (error instanceof PageMessage) return error.message;
  if (error instanceof DOMException && WEBAUTHN_REFUSALS[error.name]) return WEBAUTHN_REFUSALS[error.name] ?? error.message;
  if (!(error instanceof WalletAuthError)) return `The page failed: ${error instanceof Error ? error.message : String(error)}`;
  const needs = typeof error.data.needs === 'string' ? NEEDS[error.data.needs] : undefined;
  const parts = [needs ?? MESSAGES[error.name] ?? `The service refused (${error.name}).`];
  const fields = error.data.errors;
  if (Array.isArray(fields)) {
    for (const problem of fields as { field?: unknown; detail?: unknown }[])
      parts.push(`${String(problem.field)}: ${String(problem.detail)}.`);
  }
  if (typeof error.data.attempts_left === 'number') parts.push(`${error.data.attempts_left} tries left.`);
  if (error.retryAfterSeconds !== undefined) parts.push(`Try again in ${wait(error.retryAfterSeconds)}.`);
  parts.push(`(HTTP ${error.status}, code ${error.codes.join(', ') || 'none'})`);
  return parts.join(' ');
}
