import type { Principal } from '../call.js';
import type { CodeTarget } from '../codes/otp-codes.js';
import { AppError } from '../errors.js';
import type { Table } from '../store/table.js';
import { UserStatus } from '../store/user-status.js';
import { getPhoneClaim } from '../store/user-store.js';
import { OWNER_ONLY_OTP_TYPES } from './code-target.js';

/**
 * The active user holding (phone, user type), or undefined: a user who is not active (disabled,
 * or whose phone was reclaimed) is treated as no user at all. For purposes that act on an account
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
  const claim = await getPhoneClaim(table, companyId, target.phone_e164, target.user_type);
  const ownerId = (claim?.status_id ?? UserStatus.ACTIVE) === UserStatus.ACTIVE ? claim?.user_id : undefined;
  if (ownerOnly && ownerId !== principal?.userId) throw new AppError('FORBIDDEN', { detail: 'the token’s user does not own this phone' });
  return ownerId;
}
