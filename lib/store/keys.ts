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

export function userKey(companyId: string, userId: string): ItemKey {
  return { pk: `${companyPrefix(companyId)}#USER#${userId}`, sk: 'PROFILE' };
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
 * One session (access token) of a user, found by the hash of the token's value. Living in the
 * user's partition, all of a user's sessions are one Query away: no index, no Scan.
 */
export function sessionKey(companyId: string, userId: string, tokenHash: string): ItemKey {
  return { pk: userKey(companyId, userId).pk, sk: `${SESSION_PREFIX}${tokenHash}` };
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

/** A company's send counter for one clock hour (hours since the epoch). */
export function companySendLimitKey(companyId: string, hour: number): ItemKey {
  return { pk: `${companyPrefix(companyId)}#SENDS`, sk: `HOUR#${hour}` };
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
  const created = String(createdAtMs).padStart(15, '0');
  return { pk: userKey(companyId, userId).pk, sk: `${NOTIFICATION_PREFIX}${created}#${notificationId}` };
}
