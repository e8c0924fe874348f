// The DynamoDB key layout, in one place. Every partition key starts with the company, so no
// key built here can reach another company's items.

export interface ItemKey {
  pk: string;
  sk: string;
}

/** Partition prefix of everything a company owns. */
export function companyPrefix(companyId: string): string {
  return `C#${companyId}`;
}

export function companyKey(companyId: string): ItemKey {
  return { pk: companyPrefix(companyId), sk: 'COMPANY' };
}

/** Partition prefix of a company's users (each user's partition also holds their sessions and notifications). */
export function userPartitionPrefix(companyId: string): string {
  return `${companyPrefix(companyId)}#USER#`;
}

/** Sort key of a user's own item. */
export const USER_SORT_KEY = 'PROFILE';

export function userKey(companyId: string, userId: string): ItemKey {
  return { pk: `${userPartitionPrefix(companyId)}${userId}`, sk: USER_SORT_KEY };
}

/** Sort-key prefix of a user's referral count shards, which sort right after the user's own item. */
export const REFERRAL_COUNT_PREFIX = `${USER_SORT_KEY}#REFCOUNT#`;

/**
 * One shard of a user's referral count, in the user's partition: each referred registration adds
 * one to a shard of its own choosing, and the list sums them in the Query that reads the user.
 */
export function referralCountKey(companyId: string, userId: string, shard: number): ItemKey {
  return { pk: userKey(companyId, userId).pk, sk: `${REFERRAL_COUNT_PREFIX}${shard}` };
}

/** Claims one (E.164 phone, user type) for one user: the uniqueness record and login lookup. */
export function phoneClaimKey(companyId: string, phoneE164: string, userType: number): ItemKey {
  return { pk: `${companyPrefix(companyId)}#PHONE#${phoneE164}#TYPE#${userType}`, sk: 'CLAIM' };
}

/** Claims one (lower-cased email, user type) for one user. */
export function emailClaimKey(companyId: string, email: string, userType: number): ItemKey {
  return { pk: `${companyPrefix(companyId)}#EMAIL#${email}#TYPE#${userType}`, sk: 'CLAIM' };
}

/** Claims a referral code, which is unique within its company. */
export function referralCodeKey(companyId: string, referralCode: string): ItemKey {
  return { pk: `${companyPrefix(companyId)}#REFCODE#${referralCode}`, sk: 'CLAIM' };
}

/** Sort-key prefix of a user's sessions, which live in the user's own partition. */
export const SESSION_PREFIX = 'SESSION#';

/**
 * One session of a user, found by its id: the access token's `sid` (32 hex characters), or, for an
 * opaque token issued before signed access tokens, the SHA-256 of the token (64 hex). Living in
 * the user's partition, all of a user's sessions are one Query away: no index, no Scan.
 */
export function sessionKey(companyId: string, userId: string, sessionId: string): ItemKey {
  return { pk: userKey(companyId, userId).pk, sk: `${SESSION_PREFIX}${sessionId}` };
}

/** A proof that someone received a code on a phone (a verification_token), found by its hash. */
export function phoneProofKey(companyId: string, proofHash: string): ItemKey {
  return { pk: `${companyPrefix(companyId)}#PROOF#${proofHash}`, sk: 'PROOF' };
}

/** The one live code for (phone, user type, purpose); a new send overwrites it. */
export function otpKey(companyId: string, phoneE164: string, userType: number, otpType: number): ItemKey {
  return { pk: `${companyPrefix(companyId)}#OTP#${phoneE164}#TYPE#${userType}#PURPOSE#${otpType}`, sk: 'OTP' };
}

/** The send counters of one phone in one company. */
export function phoneSendLimitKey(companyId: string, phoneE164: string): ItemKey {
  return { pk: `${companyPrefix(companyId)}#SENDS#${phoneE164}`, sk: 'LIMIT' };
}

/**
 * One shard of a company's send counter for one clock hour (hours since the epoch): the hour's
 * ceiling is split over shards, each an item (and partition) of its own, so no one item takes
 * every send of a company (lib/otp/send-limits.ts).
 */
export function companySendLimitKey(companyId: string, hour: number, shard: number): ItemKey {
  return { pk: `${companyPrefix(companyId)}#SENDS#SHARD#${shard}`, sk: `HOUR#${hour}` };
}

/** A company's sends to one number range (country code and leading national digits) in one clock hour. */
export function prefixSendLimitKey(companyId: string, prefix: string, hour: number): ItemKey {
  return { pk: `${companyPrefix(companyId)}#SENDS#PREFIX#${prefix}`, sk: `HOUR#${hour}` };
}

/** Wrong codes for one phone of one company, across codes and purposes, in a window. */
export function phoneFailuresKey(companyId: string, phoneE164: string): ItemKey {
  return { pk: `${companyPrefix(companyId)}#FAILS#${phoneE164}`, sk: 'WINDOW' };
}

/**
 * A counter of one source address in one window. The contract's one exception to keys that
 * start with the company: these guard the whole service and hold no user data.
 */
export function addressLimitKey(address: string, kind: 'SENDS' | 'VERIFIES', window: number): ItemKey {
  return { pk: `ADDRESS#${address}`, sk: `${kind}#${window}` };
}

/** Sort-key prefix of a user's notifications, which live in the user's own partition. */
export const NOTIFICATION_PREFIX = 'NOTIF#';

/** Newest-first order comes from the creation time leading the sort key. */
export function notificationKey(companyId: string, userId: string, createdAtMs: number, notificationId: string): ItemKey {
  return { pk: userKey(companyId, userId).pk, sk: `${notificationTimeBound(createdAtMs)}#${notificationId}` };
}

/** A sort key that falls after every notification created before createdAtMs and before every other one. */
export function notificationTimeBound(createdAtMs: number): string {
  return `${NOTIFICATION_PREFIX}${String(createdAtMs).padStart(15, '0')}`;
}

/** Sort-key prefix of one PIN's tallies of wrong tries ("login" or "transaction"). */
export function pinTriesPrefix(pinType: 'login' | 'transaction'): string {
  return `PINTRIES#${pinType}`;
}

/**
 * One tally of wrong tries of one of a user's PINs, in the user's partition (API contract 3.15): a
 * login PIN counts per device (`tally` its device_key; none: tries from a session with no device),
 * a transaction PIN per strength of the session (`tally` "sms"; none: strong). A tally locks when it
 * reaches the limit; a right PIN clears it, a reset clears every tally of that PIN. The tallies of
 * round 5 and before, one per PIN, are the untallied keys.
 */
export function pinTriesKey(companyId: string, userId: string, pinType: 'login' | 'transaction', tally?: string): ItemKey {
  return { pk: userKey(companyId, userId).pk, sk: tally ? `${pinTriesPrefix(pinType)}#${tally}` : pinTriesPrefix(pinType) };
}

/** A user's wrong tries of one PIN over 24 hours, across its tallies (the daily cap of contract 3.15). */
export function pinDailyKey(companyId: string, userId: string, pinType: 'login' | 'transaction'): ItemKey {
  return { pk: userKey(companyId, userId).pk, sk: `PINDAY#${pinType}` };
}

/** Sort-key prefix of the shards of a user's unread count (none of them starts with NOTIFICATION_PREFIX). */
export const UNREAD_COUNT_PREFIX = 'NOTIFS#UNREAD#';

/**
 * One shard of a user's unread notifications count, kept by the writes that add or read them
 * (never by counting on read); the count is the sum of the shards, which may each go below 0.
 */
export function unreadCountKey(companyId: string, userId: string, shard: number): ItemKey {
  return { pk: userKey(companyId, userId).pk, sk: `${UNREAD_COUNT_PREFIX}${shard}` };
}

/**
 * A user's payments approved from SMS-strength sessions in one currency over the last 24 hours
 * (contract 3.15, second reading), in the user's partition: the amounts and when, and a version each
 * write moves on, so two approvals at once cannot both pass the company's limit.
 */
export function smsPaymentsKey(companyId: string, userId: string, currency: string): ItemKey {
  return { pk: userKey(companyId, userId).pk, sk: `SMSPAY#${currency}` };
}

/** A transaction authorization, found by the hash of its token (contract 3.8). */
export function authorizationKey(companyId: string, tokenHash: string): ItemKey {
  return { pk: `${companyPrefix(companyId)}#AUTHZ#${tokenHash}`, sk: 'AUTHZ' };
}

/** One payment reference of one user, claimed while an authorization of it lives. */
export function authorizationReferenceKey(companyId: string, userId: string, reference: string): ItemKey {
  return { pk: `${companyPrefix(companyId)}#AUTHREF#${userId}#${reference}`, sk: 'CLAIM' };
}

/**
 * The first outcome of a request sent with an Idempotency-Key, found by a hash of the key, the
 * caller's Authorization and the company: the same key under another token is another record.
 */
export function idempotencyRecordKey(companyId: string, scopeHash: string): ItemKey {
  return { pk: `${companyPrefix(companyId)}#IDEMPOTENCY#${scopeHash}`, sk: 'ANSWER' };
}

/**
 * A bound device, found by its device_key alone (PIN login has no token to name the user): who it
 * belongs to and its public key. The device's nonces share its partition.
 */
export function deviceIndexKey(companyId: string, deviceKey: string): ItemKey {
  return { pk: `${companyPrefix(companyId)}#DEVICE#${deviceKey}`, sk: 'DEVICE' };
}

/** Sort-key prefix of a device's nonces. */
export const DEVICE_NONCE_PREFIX = 'NONCE#';

/** A nonce a PIN login used on a device: accepted once per device (put if absent), kept past the timestamp window. */
export function deviceNonceKey(companyId: string, deviceKey: string, nonce: string): ItemKey {
  return { pk: deviceIndexKey(companyId, deviceKey).pk, sk: `${DEVICE_NONCE_PREFIX}${nonce}` };
}

/** Sort-key prefix of a user's devices, which live in the user's own partition (the list, least recently used first to go). */
export const USER_DEVICE_PREFIX = 'DEVICE#';

/** One device of a user as the user's list shows it: labels, when bound, when last used. */
export function userDeviceKey(companyId: string, userId: string, deviceKey: string): ItemKey {
  return { pk: userKey(companyId, userId).pk, sk: `${USER_DEVICE_PREFIX}${deviceKey}` };
}

/** Sort-key prefix of a company's due list of erasures. */
export const ERASURE_DUE_PREFIX = 'DUE#';

/**
 * A deleted user's place in their company's due list (API contract 3.11), sorted by when the
 * erasure is due: the eraser Queries what is due now, page by page, with no Scan. Holds no personal data.
 */
export function erasureDueKey(companyId: string, eraseAfter: number, userId: string): ItemKey {
  return { pk: `${companyPrefix(companyId)}#ERASURES`, sk: `${ERASURE_DUE_PREFIX}${String(eraseAfter).padStart(12, '0')}#${userId}` };
}

/**
 * The list of companies that ever had a deletion, so the scheduled eraser finds their due lists
 * without a Scan. Like the address counters, a service-wide partition: it holds company ids only.
 */
export const ERASURE_COMPANIES_PK = 'ERASURES';

export function erasureCompanyKey(companyId: string): ItemKey {
  return { pk: ERASURE_COMPANIES_PK, sk: companyPrefix(companyId) };
}

/**
 * How many admins a company has (API contract 3.14): in a partition of its own, so that a role that
 * may count admins cannot write the company's record (IAM sees partition keys only).
 */
export function adminCountKey(companyId: string): ItemKey {
  return { pk: `${companyPrefix(companyId)}#ADMINS`, sk: 'COUNT' };
}

/**
 * An active admin's seat (API contract 3.14, round 6): present exactly while the employee is an
 * admin AND active, beside the company's count of them. Every change in or out of that set (a
 * grant, a demotion, a disable, an enable, a deletion, a restore) puts or deletes it on condition,
 * so two changes that each read the same admin cannot both take them out of the count.
 */
export function adminSeatKey(companyId: string, userId: string): ItemKey {
  return { pk: adminCountKey(companyId).pk, sk: `SEAT#${userId}` };
}

/** Sort-key prefix of a company's grants awaiting approval. */
export const GRANT_PREFIX = 'GRANT#';
/** Sort-key prefix of a company's recoveries awaiting approval. */
export const AWAITING_RECOVERY_PREFIX = 'RECOVERY#';

/**
 * What awaits a second admin's approval in a company (API contract 3.14, round 6): a grant (of a
 * role, or of a change of the security settings), kept here with what it grants.
 */
export function grantKey(companyId: string, grantId: string): ItemKey {
  return { pk: `${companyPrefix(companyId)}#APPROVALS`, sk: `${GRANT_PREFIX}${grantId}` };
}

/**
 * A recovery awaiting approval, listed beside the grants (the change itself stays in the user's
 * partition): the list reads the change it names to see it still awaits.
 */
export function awaitingRecoveryKey(companyId: string, changeId: string): ItemKey {
  return { pk: grantKey(companyId, '').pk, sk: `${AWAITING_RECOVERY_PREFIX}${changeId}` };
}

/** Sort-key prefix of the back-office actions on a user, kept in the user's partition (their export lists them). */
export const STAFF_ACTION_PREFIX = 'STAFF#';

/** One back-office action on a user, in time order. */
export function staffActionKey(companyId: string, userId: string, atMs: number, actionId: string): ItemKey {
  return { pk: userKey(companyId, userId).pk, sk: `${STAFF_ACTION_PREFIX}${String(atMs).padStart(15, '0')}#${actionId}` };
}

/**
 * One back-office action in its company's log of that UTC day, as kept before the staff record
 * became a chain (round 6): read by `npm run staff:actions`, never written any more.
 */
export function staffLogKey(companyId: string, atMs: number, actionId: string): ItemKey {
  const day = new Date(atMs).toISOString().slice(0, 10);
  return { pk: `${companyPrefix(companyId)}#STAFFLOG#${day}`, sk: `${String(atMs).padStart(15, '0')}#${actionId}` };
}

/** Sort-key prefix of the records of a company's staff chain. */
export const STAFF_CHAIN_PREFIX = 'SEQ#';

/**
 * One back-office action in its company's staff record (API contract 3.14, round 6): every search,
 * view and action, at its place `seq` (1, 2, ... with no gap) in the company's hash chain, so the
 * whole chain is one Query in order. `npm run staff:actions` and `staff:verify` read it.
 */
export function staffChainKey(companyId: string, seq: number): ItemKey {
  return { pk: `${companyPrefix(companyId)}#STAFFLOG`, sk: `${STAFF_CHAIN_PREFIX}${String(seq).padStart(15, '0')}` };
}

/**
 * The head of a company's staff chain: the last record's `seq` and hash. Every record is appended
 * through a write conditional on it, so concurrent writers form one chain.
 */
export function staffChainHeadKey(companyId: string): ItemKey {
  return { pk: `${companyPrefix(companyId)}#STAFFHEAD`, sk: 'HEAD' };
}

/** An employee's back-office searches and views of one clock hour (ADMIN_LOOKUPS_PER_HOUR). */
export function staffLookupsKey(companyId: string, employeeId: string, hour: number): ItemKey {
  return { pk: `${companyPrefix(companyId)}#LOOKUPS#${employeeId}`, sk: `HOUR#${hour}` };
}

/**
 * Sort-key prefix of a user's pending changes (API contract 3.15), in the user's partition: all of
 * them one Query away. It sorts right before USER_DEVICE_PREFIX with nothing between them, so a PIN
 * login reads the user's devices and pending changes in one Query (device-store.ts queryDevicesAndChanges).
 */
export const PENDING_CHANGE_PREFIX = 'CHANGE#';

/**
 * A user's pending change of one kind (API contract 3.11 and 3.15: a new number, a new PIN, a device
 * removal...): one per user and kind, so a new request of the kind overwrites it. A cancelled or void
 * change stays marked (its stream record is the event).
 */
export function pendingChangeKey(companyId: string, userId: string, kind: string): ItemKey {
  return { pk: userKey(companyId, userId).pk, sk: `${PENDING_CHANGE_PREFIX}${kind}` };
}

/**
 * A user's freeze of held changes (API contract 3.15, second reading): staff who strip the owner's
 * defences (a settled device removed, sessions ended, the user disabled) refuse new held changes
 * for 72 h. Outside the range of PENDING_CHANGE_PREFIX to USER_DEVICE_PREFIX: no pending change.
 */
export function changeFreezeKey(companyId: string, userId: string): ItemKey {
  return { pk: userKey(companyId, userId).pk, sk: 'FROZEN#CHANGES' };
}

/** Where round 5 kept a user's one pending phone change; `npm run changes:migrate` moves it to pendingChangeKey's. */
export const ROUND_5_PHONE_CHANGE_SORT_KEY = 'PHONECHANGE';

/**
 * A pending change found by its new number (phone, user type): how login_phone and verify_otp
 * find the user whose change a login to that number completes. One per number.
 */
export function phoneChangeIndexKey(companyId: string, phoneE164: string, userType: number): ItemKey {
  return { pk: `${companyPrefix(companyId)}#NEWPHONE#${phoneE164}#TYPE#${userType}`, sk: 'PENDING' };
}

/** Sort-key prefix of a user's passkeys (API contract 3.16), in the user's own partition. */
export const USER_PASSKEY_PREFIX = 'PASSKEY#';

/** One passkey of a user, by its passkey_id (32 hex): the public key, counter and labels. */
export function userPasskeyKey(companyId: string, userId: string, passkeyId: string): ItemKey {
  return { pk: userKey(companyId, userId).pk, sk: `${USER_PASSKEY_PREFIX}${passkeyId}` };
}

/**
 * Claims a WebAuthn credential id within its company (API contract 3.16, second reading): unique per
 * company by a conditional write, and how a login finds the passkey. Keyed by the SHA-256 of the id
 * (hex), which bounds the key whatever the authenticator chose (up to 1,023 bytes).
 */
export function passkeyCredentialKey(companyId: string, credentialIdHash: string): ItemKey {
  return { pk: `${companyPrefix(companyId)}#PASSKEY#${credentialIdHash}`, sk: 'CLAIM' };
}

/** A WebAuthn challenge the service gave (register or login options), single-use, by its base64url value. */
export function webauthnChallengeKey(companyId: string, challenge: string): ItemKey {
  return { pk: `${companyPrefix(companyId)}#WACHALLENGE#${challenge}`, sk: 'CHALLENGE' };
}

/** A user's count of passkeys (at most PASSKEYS_MAX), an item of its own so that no grant or device write on the user's item meets it. */
export function userPasskeyCountKey(companyId: string, userId: string): ItemKey {
  return { pk: userKey(companyId, userId).pk, sk: 'PASSKEYCOUNT' };
}

/**
 * A DPoP proof's jti, spent (contract 3.17): in the partition of the key that signed it (its RFC
 * 7638 thumbprint), the jti hashed so no client text sets the key's length. Kept until the proof's
 * window has passed (expires_at, the TTL; an expired one is as good as absent).
 */
export function dpopProofKey(companyId: string, jkt: string, jtiHash: string): ItemKey {
  return { pk: `${companyPrefix(companyId)}#DPOP#${jkt}`, sk: `JTI#${jtiHash}` };
}
