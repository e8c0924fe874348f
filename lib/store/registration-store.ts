import type { ItemKey } from './keys.js';
import { notificationWrites, type StoredNotification } from './notification-store.js';
import { phoneProofConsume } from './proof-store.js';
import { referralCodePut, referralCountAdd } from './referral-store.js';
import { sessionEnd } from './session-store.js';
import type { Table } from './table.js';
import { ConditionsFailed, type LabelledItem, type TransactItem, writeTransaction } from './transactions.js';
import {
  emailClaimPut,
  emailClaimRelease,
  emailClaimTake,
  phoneClaimMove,
  phoneClaimPut,
  type RegisteringRequest,
  type UserRecord,
  userExistsCheck,
  userPhoneReclaimed,
  userPut,
} from './user-store.js';

// A new user and everything that comes with it, written as one transaction whose conditions
// enforce the rules. A refusal is answered in the terms of registration, not of the items.

/** A phone taken over from the user who holds it without having proved it (lib/registration/phone-reclaim.ts). */
export interface ReclaimWrite {
  holder: UserRecord;
  /** The holder's session_version when read: the takeover fails if a session was granted since. */
  sessionVersion: number;
  /** The holder's sessions, ended in the same write. */
  sessions: ItemKey[];
  /**
   * The holder's sessions beyond one transaction: ended right after it commits, never before (a
   * refused takeover ends nothing). None is granted meanwhile: the holder is no longer active.
   */
  laterSessions: ItemKey[];
}

export interface Registration {
  user: UserRecord;
  /** The new user's first session; none for a user registered disabled. */
  session: TransactItem | undefined;
  /** A phone proof to use up: its hash and the purpose it must have been issued for. */
  proof: { hash: string; otpType: number } | undefined;
  /** For a referred sign-up: the referrer's notification (its referrer is user.referred_by). */
  notification: StoredNotification | undefined;
  /** For a referred sign-up: the shard of the referrer's count it adds one to. */
  referralCountShard: number;
  reclaim: ReclaimWrite | undefined;
  /** The new user's first bound device (its index and list items). */
  device: TransactItem[] | undefined;
  nowMs: number;
  /** The request's Idempotency-Key record, kept on a new phone claim so a retry of it recognises its own write. */
  request?: RegisteringRequest | undefined;
  /** An employee's registration: its staff record (contract 3.14), renewed at the chain's next place when overtaken. */
  staffRecord?: LabelledItem<string>[] | undefined;
}

/** Why a registration was not written. */
export type RegistrationRefusal =
  /** The phone is held by another user (or, for a reclaim, no longer by the holder read). */
  | 'phone_taken'
  | 'email_taken'
  /** The phone's holder changed since read: verified, disabled, granted a session, or their email claim moved. */
  | 'holder_changed'
  /** Unknown, expired, used, or issued for another phone, user type or purpose. */
  | 'proof_invalid'
  | 'parent_unknown'
  /** A new referral code or id collided with one in use: drawing again succeeds. */
  | 'collision';

export class RegistrationRefused extends Error {
  constructor(readonly reasons: ReadonlySet<RegistrationRefusal>) {
    super(`registration refused: ${[...reasons].join(', ')}`);
    this.name = 'RegistrationRefused';
  }
}

type Guard =
  | 'device'
  | 'user'
  | 'phone'
  | 'email'
  | 'referral_code'
  | 'session'
  | 'referral_count'
  | 'notification'
  | 'parent'
  | 'proof'
  | 'holder'
  | 'staff_record';

const REFUSAL_OF: Record<Guard, RegistrationRefusal> = {
  phone: 'phone_taken',
  email: 'email_taken',
  holder: 'holder_changed',
  proof: 'proof_invalid',
  // An unconditional ADD: never refused.
  referral_count: 'collision',
  parent: 'parent_unknown',
  user: 'collision',
  device: 'collision',
  referral_code: 'collision',
  session: 'collision',
  notification: 'collision',
  staff_record: 'collision',
};

/** The claim on the new user's email, and what becomes of the holder's when a phone is reclaimed. */
function emailWrites(table: Table, user: UserRecord, reclaim: ReclaimWrite | undefined): LabelledItem<Guard>[] {
  const { company_id: companyId, user_type: userType, user_id: userId, email } = user;
  const holder = reclaim?.holder;
  if (holder?.email && holder.email === email) {
    return [{ label: 'email', item: emailClaimTake(table, companyId, email, userType, userId, holder.user_id) }];
  }
  const writes: LabelledItem<Guard>[] = [];
  if (holder?.email) writes.push({ label: 'holder', item: emailClaimRelease(table, companyId, holder.email, userType, holder.user_id) });
  if (email) writes.push({ label: 'email', item: emailClaimPut(table, companyId, email, userType, userId) });
  return writes;
}

function registrationWrites(
  table: Table,
  { user, session, proof, notification, referralCountShard, reclaim, device, nowMs, request, staffRecord }: Registration,
): LabelledItem<Guard>[] {
  const companyId = user.company_id;
  const nowSeconds = Math.floor(nowMs / 1000);
  const writes: LabelledItem<Guard>[] = [
    { label: 'user', item: userPut(table, user) },
    {
      label: 'phone',
      item: reclaim
        ? phoneClaimMove(
            table,
            companyId,
            user.phone_e164,
            user.user_type,
            { userId: user.user_id, statusId: user.status_id },
            reclaim.holder.user_id,
            request,
          )
        : phoneClaimPut(table, companyId, user.phone_e164, user.user_type, user.user_id, user.status_id, request),
    },
    { label: 'referral_code', item: referralCodePut(table, companyId, user.referral_code, user.user_id) },
    ...emailWrites(table, user, reclaim),
  ];
  if (session) writes.push({ label: 'session', item: session });
  for (const item of device ?? []) writes.push({ label: 'device', item });
  if (proof) {
    const expected = { phoneE164: user.phone_e164, userType: user.user_type, otpType: proof.otpType, now: nowSeconds };
    writes.push({ label: 'proof', item: phoneProofConsume(table, companyId, proof.hash, expected) });
  }
  // A transaction may touch an item once: a parent who is also the holder is already required to
  // exist by that write.
  if (user.parent_user_id && user.parent_user_id !== reclaim?.holder.user_id) {
    writes.push({ label: 'parent', item: userExistsCheck(table, companyId, user.parent_user_id) });
  }
  if (user.referred_by) {
    // A shard of the count, never the referrer's own item (referralCountAdd).
    writes.push({ label: 'referral_count', item: referralCountAdd(table, companyId, user.referred_by, referralCountShard) });
    if (notification) {
      writes.push(...notificationWrites(table, companyId, notification, nowMs).map((item) => ({ label: 'notification' as const, item })));
    }
  }
  // The record's items keep their renewal (they are the chain's): labelled, not copied.
  for (const record of staffRecord ?? []) writes.push(Object.assign(record, { label: 'staff_record' as const }));
  if (reclaim) {
    const holderId = reclaim.holder.user_id;
    writes.push(
      { label: 'holder', item: userPhoneReclaimed(table, companyId, holderId, reclaim.sessionVersion, nowSeconds) },
      ...reclaim.sessions.map((key) => ({ label: 'session' as const, item: sessionEnd(table, key, { reason: 'reclaimed', atMs: nowMs }) })),
    );
  }
  return writes;
}

/**
 * Writes a registration all or nothing: the user, the claims on phone, email and referral code,
 * the first session, the proof used up, a shard of the referrer's count and their notification, and a reclaimed
 * holder's status, claims and sessions. Throws RegistrationRefused saying why when a rule does not hold.
 */
export async function writeRegistration(table: Table, registration: Registration): Promise<void> {
  try {
    await writeTransaction(table, registrationWrites(table, registration));
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    throw new RegistrationRefused(new Set((error.labels as Guard[]).map((label) => REFUSAL_OF[label])));
  }
}
