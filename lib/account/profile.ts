import type { App } from '../app-context.js';
import { AppError } from '../errors.js';
import { isRunning, type PendingChange, type PendingPhoneChange } from '../store/pending-change-store.js';
import type { StaffRole } from '../store/staff-store.js';
import { UserStatus } from '../store/user-status.js';
import { getUser, type UserRecord } from '../store/user-store.js';
import { UserType } from '../users/user-types.js';
import type { PendingPhoneChangeShown, Profile } from './profile-result.js';

// The account's profile (API contract 3.11): what the wallet holds about a user, as they see it,
// and the fields they may change. An email is unique per company and user type by its claim: a
// change takes the new claim and gives up the old one in the same transaction as the record. The
// read is profile-read.ts, the change profile-update.ts: each function carries only its own path.

/**
 * A user's record as the profile shows it: never a password, PIN, hash, key or count of sessions.
 * An employee's back-office role too, so that the console shows an admin's controls to admins only.
 */
export function profileOf(user: UserRecord & { role?: StaffRole }): Profile {
  return {
    user_id: user.user_id,
    user_type: user.user_type,
    first_name: user.first_name,
    last_name: user.last_name,
    email: user.email ?? null,
    dial_code: user.dial_code,
    phone_number: user.phone_number,
    phone_verified: user.phone_verified ?? 0,
    birth_date: user.birth_date ?? null,
    image: user.image ?? null,
    kyc_status: user.kyc_status,
    kyc_process_status: user.kyc_process_status,
    country_id: user.country_id ?? null,
    location_point: user.location_point ? `${user.location_point.lat},${user.location_point.lng}` : null,
    referral_code: user.referral_code,
    status_id: user.status_id,
    ...(user.user_type === UserType.EMPLOYEE ? { role: user.role ?? null } : {}),
    created_date: user.created_at,
    updated_date: user.updated_at,
  };
}

/** 401: the account was deleted (or disabled) meanwhile. */
export const accountGone = () => new AppError('UNAUTHORIZED', { detail: 'the user is not active' });

/** The user of a live session: gone or no longer active only if something ended it meanwhile. */
export async function activeUser(app: Pick<App, 'table'>, companyId: string, userId: string): Promise<UserRecord> {
  const user = await getUser(app.table, companyId, userId, true);
  if (user?.status_id !== UserStatus.ACTIVE) throw new AppError('UNAUTHORIZED', { detail: 'the user is not active' });
  return user;
}

/** The phone change among a user's pending changes, if any. */
export function phoneChangeOf(changes: PendingChange[]): PendingPhoneChange | undefined {
  return changes.find((change): change is PendingPhoneChange => change.kind === 'phone');
}

/** A pending phone change as the profile shows it (the back office's view too): null when there is none running. */
export function pendingPhoneChangeOf(change: PendingPhoneChange | undefined, now: number): PendingPhoneChangeShown {
  // An ended or expired change is none: no emulator deletes TTL items, and DynamoDB does so late. A
  // recovery that awaits its approval is not running yet: the user is told when it is approved.
  return isRunning(change, now)
    ? { change_id: change.change_id, effective_at: change.effective_at, phone_last4: change.phone_number.slice(-4) }
    : null;
}
