import { fieldError } from '../errors.js';

// What every phone change shares (API contract 3.11): how long a pending one may complete, and its
// refusals. A module of its own, so that the back office's recovery takes them without the SMS path.

/** After effective_at, a login to the new number completes the change for this long; then it is void. */
export const PENDING_CHANGE_COMPLETES_WITHIN_SECONDS = 7 * 24 * 3600;

export const invalidProof = () =>
  fieldError(
    'PHONE_NOT_VERIFIED',
    'phone_verification_token',
    'is not a valid proof of the new number: unknown, expired, used, for another number, or verified without this user’s token',
  );

export const taken = () => fieldError('ALREADY_REGISTERED', 'phone_number', 'is already registered for this user type');
