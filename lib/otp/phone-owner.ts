import { AppError } from '../errors.js';
import type { Table } from '../store/table.js';
import { getPhoneOwner } from '../store/user-store.js';
import type { Principal } from '../tokens/access-tokens.js';
import type { CodeTarget } from './otp-codes.js';
import { OWNER_ONLY_OTP_TYPES } from './otp-input.js';

/**
 * The user holding (phone, user type), or undefined. For purposes that act on an account
 * (top-up, KYC), the caller's token must be that user's: 401 without one, 403 otherwise.
 */
export async function phoneOwnerFor(
  table: Table,
  companyId: string,
  target: CodeTarget,
  principal: Principal | undefined,
): Promise<string | undefined> {
  const ownerOnly = OWNER_ONLY_OTP_TYPES.includes(target.otp_type);
  if (ownerOnly && !principal) throw new AppError('UNAUTHORIZED', { detail: 'this otp_type needs the phone owner’s token' });
  const ownerId = await getPhoneOwner(table, companyId, target.phone_e164, target.user_type);
  if (ownerOnly && ownerId !== principal?.userId) throw new AppError('FORBIDDEN', { detail: 'the token’s user does not own this phone' });
  return ownerId;
}
