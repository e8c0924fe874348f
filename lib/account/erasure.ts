import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { OtpType } from '../codes/otp-types.js';
import { audit } from '../observability/audit.js';
import {
  blankReferralNotification,
  deleteErasureDue,
  deleteIfUsers,
  deleteKeys,
  deletePhoneItemWrittenBefore,
  deviceNonceKeys,
  dueErasures,
  erasureCompanies,
  itemExists,
  markErasing,
  putErasedRecord,
  referralNotificationsNaming,
  releaseReferralCode,
  userPartitionRest,
} from '../store/erasure-store.js';
import {
  emailClaimKey,
  type ItemKey,
  otpKey,
  passkeyCredentialKey,
  phoneClaimKey,
  phoneFailuresKey,
  phoneSendLimitKey,
} from '../store/keys.js';
import { credentialIdHash, queryPasskeys } from '../store/passkey-store.js';
import { UserStatus } from '../store/user-status.js';
import { getUser, type UserRecord } from '../store/user-store.js';
import { UserType } from '../users/user-types.js';

// The eraser (API contract 3.11): every account whose erasure is due is erased, found through its
// company's due list (Queries, no Scan), a page at a time until the run's deadline; what is left
// waits for the next run. Each erasure is steps that may all run again: the user becomes ERASED
// first (a restore then comes too late), their items go, and the record is replaced by what is
// kept last, so a run cut off anywhere is finished by the next one.

/** What a referrer's notification says once the user it named is erased. */
export const ERASED_REFERRAL_TEXT = 'Someone signed up with your referral code.';

/** Due items read per Query. */
export const ERASE_PAGE_SIZE = 25;

export interface EraseRun {
  /** Only this company (npm run accounts:erase); else every company with deletions. */
  companyId?: string | undefined;
  /** Milliseconds left before the run must stop taking users (app.timer time is not needed: the caller measures). */
  timeLeftMs: () => number;
  /** Stop taking pages when less than this is left. */
  marginMs?: number;
  pageSize?: number;
}

export interface EraseOutcome {
  erased: number;
  failed: number;
  /** Whether due accounts may be left for the next run (the deadline came first). */
  more: boolean;
}

/**
 * The codes and counters of the user's number: each is erased if it expired, or if it was written
 * while the number was still the user's (before `freedBefore`); whatever someone who took the number
 * up later has written under it meanwhile (a registration's code, its sends, its wrong codes) is
 * theirs and stays. Each delete is conditional, so one written while the eraser runs stays too.
 */
async function erasePhoneItems(
  app: Pick<App, 'table'>,
  companyId: string,
  phoneE164: string,
  freedBefore: number | undefined,
  now: number,
) {
  const items: { key: ItemKey; writtenAt: string }[] = [
    ...Object.values(UserType).flatMap((userType) =>
      Object.values(OtpType).map((otpType) => ({ key: otpKey(companyId, phoneE164, userType, otpType), writtenAt: 'created_at' })),
    ),
    { key: phoneSendLimitKey(companyId, phoneE164), writtenAt: 'last_sent_at' },
    // A window's tries are dated by the latest (last_try_at), not by the window's start: one the user
    // opened may hold the wrong codes of whoever had the number next.
    { key: phoneFailuresKey(companyId, phoneE164), writtenAt: 'last_try_at' },
  ];
  await Promise.all(items.map(({ key, writtenAt }) => deletePhoneItemWrittenBefore(app.table, key, writtenAt, freedBefore, now)));
}

/**
 * Until when the number was the erased user's, as far as the table tells. A held deletion kept it
 * claimed until this erasure freed it (now); an at-once deletion freed it at `deleted_at` (its whole
 * second counted as theirs). While an account holds it (a reclaim, or the person's account of another
 * user type), nothing but the expired is the erased user's.
 */
async function phoneFreedBefore(
  app: Pick<App, 'table'>,
  companyId: string,
  phoneE164: string,
  claimFreedNow: boolean,
  deletedAt: number | undefined,
  now: number,
): Promise<number | undefined> {
  for (const userType of Object.values(UserType)) {
    if (await itemExists(app.table, phoneClaimKey(companyId, phoneE164, userType))) return undefined;
  }
  if (claimFreedNow) return now;
  return deletedAt === undefined ? undefined : deletedAt + 1;
}

/** Erases one user whose erasure is due; false when they are not (restored, or not yet due). */
export async function eraseAccount(app: Pick<App, 'table' | 'clock'>, companyId: string, userId: string): Promise<boolean> {
  const now = epochSeconds(app.clock);
  if (!(await markErasing(app.table, companyId, userId, now))) return false;
  const user = (await getUser(app.table, companyId, userId, true)) as
    | (UserRecord & { deleted_device_keys?: string[]; deleted_at?: number; erased_at?: number })
    | undefined;
  // Replaced by its shell already (a run after the last step): nothing personal is left.
  if (!user || user.phone_e164 === undefined) return true;
  // Passkeys (contract 3.16): each credential id's claim in the company, before the partition that names them goes.
  const passkeys = await queryPasskeys(app.table, companyId, userId);
  await deleteKeys(
    app.table,
    passkeys.map((passkey) => passkeyCredentialKey(companyId, credentialIdHash(passkey.credential_id))),
  );
  // The user's partition: sessions, devices, passkeys, notifications, unread and referral counts, PIN tries.
  await deleteKeys(app.table, await userPartitionRest(app.table, companyId, userId));
  for (const deviceKey of user.deleted_device_keys ?? []) {
    await deleteKeys(app.table, await deviceNonceKeys(app.table, companyId, deviceKey));
  }
  await releaseReferralCode(app.table, companyId, user.referral_code, userId);
  // Claims the deletion freed are gone already; these hold only if a claim was still theirs.
  const claimFreedNow = await deleteIfUsers(app.table, phoneClaimKey(companyId, user.phone_e164, user.user_type), userId);
  if (user.email) await deleteIfUsers(app.table, emailClaimKey(companyId, user.email, user.user_type), userId);
  const freedBefore = await phoneFreedBefore(app, companyId, user.phone_e164, claimFreedNow, user.deleted_at, now);
  await erasePhoneItems(app, companyId, user.phone_e164, freedBefore, now);
  if (user.referred_by) {
    for (const key of await referralNotificationsNaming(app.table, companyId, user.referred_by, userId)) {
      await blankReferralNotification(app.table, key, ERASED_REFERRAL_TEXT);
    }
  }
  await putErasedRecord(app.table, {
    user_id: userId,
    company_id: companyId,
    user_type: user.user_type,
    status_id: UserStatus.ERASED,
    created_at: user.created_at,
    erased_at: user.erased_at ?? now,
  });
  return true;
}

/** Erases what is due in one company, page by page, until the due list is done or the time is up. */
async function eraseCompany(app: App, companyId: string, run: EraseRun, outcome: EraseOutcome): Promise<void> {
  const marginMs = run.marginMs ?? 0;
  let start: Record<string, unknown> | undefined;
  do {
    if (run.timeLeftMs() <= marginMs) {
      outcome.more = true;
      return;
    }
    const page = await dueErasures(app.table, companyId, epochSeconds(app.clock), run.pageSize ?? ERASE_PAGE_SIZE, start);
    // Done items leave the list; a failed one stays, and the next page starts after it.
    start = page.next;
    for (const due of page.due) {
      try {
        const erased = await eraseAccount(app, companyId, due.userId);
        await deleteErasureDue(app.table, companyId, due.userId, due.eraseAfter);
        if (erased) {
          outcome.erased += 1;
          audit(app, undefined, 'account_erased', { company_id: companyId, user_id: due.userId, outcome: 'erased' });
        }
      } catch (error) {
        outcome.failed += 1;
        app.logger.error('erasure failed; it is tried again at the next run', {
          company_id: companyId,
          user_id: due.userId,
          error: error as Error,
        });
      }
    }
  } while (start);
}

/** One run of the eraser. */
export async function eraseDueAccounts(app: App, run: EraseRun): Promise<EraseOutcome> {
  const outcome: EraseOutcome = { erased: 0, failed: 0, more: false };
  const companies = run.companyId ? [run.companyId] : await erasureCompanies(app.table);
  for (const companyId of companies) {
    await eraseCompany(app, companyId, run, outcome);
    if (outcome.more) break;
  }
  return outcome;
}
