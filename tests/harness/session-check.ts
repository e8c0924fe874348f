import { companyPrefix, SESSION_PREFIX, sessionKey } from '../../lib/store/keys.js';
import { itemId, type StoredItem } from './table-snapshot.js';

// Sessions begun from a code sent to a number the user has left (issue 37), checked over a
// company's items as stored and what a run was answered: an OTP login's session is the one its
// access token names (`sid`), and the number it logged in to is the one the code was sent to.
// A phone change ends every other session of the user (lib/account/phone-change.ts) and deletes
// the login code waiting on the old number, so once a user has moved, no live session of theirs
// began by an OTP login to a number they left, but the one that made the change.
// No vitest here: scripts/chaos.ts uses it too.

/** An OTP login answered 200 (verify_otp, otp_type 1): its session, its user, the number the code went to. */
export interface OtpLogin {
  sid: string;
  userId: string;
  phoneE164: string;
}

/** A phone change sent (whatever its answer): the session that presented it, its user, the number it moved to. */
export interface PhoneChangeSent {
  sid: string;
  userId: string;
  toE164: string;
}

export interface SessionCheck {
  /** OTP logins answered (each session once), and those whose session is still live. */
  otpLogins: number;
  live: number;
  /** A description of each broken rule; empty when all hold. */
  problems: string[];
}

/** A session item that is live at `nowSeconds`: not ended (ended_reason) and not past its expires_at. */
export function isLiveSession(item: StoredItem | undefined, nowSeconds: number): item is StoredItem {
  if (!item) return false;
  return item.sk.startsWith(SESSION_PREFIX) && item.ended_reason === undefined && Number(item.expires_at) > nowSeconds;
}

/**
 * No live session answered by an OTP login to a number other than its user's phone as stored
 * (phone_e164), unless that session presented the change to the user's current number (a change
 * keeps its own presenting session). Sessions whose user is not stored are left to
 * identityProblems (tests/harness/table-snapshot.ts), as are the live sessions of a user who is
 * not active.
 */
export function sessionCheck(
  items: StoredItem[],
  companyId: string,
  answered: { otpLogins: OtpLogin[]; phoneChanges: PhoneChangeSent[] },
  nowSeconds: number,
): SessionCheck {
  const prefix = `${companyPrefix(companyId)}#USER#`;
  const byId = new Map(items.map((item) => [itemId(item), item]));
  const users = new Map(
    items.filter((item) => item.sk === 'PROFILE' && item.pk.startsWith(prefix)).map((user) => [user.user_id as string, user]),
  );
  // A replay of a login's answer may name its session again: each session is checked once.
  const logins = new Map(answered.otpLogins.map((login) => [`${login.userId} ${login.sid}`, login]));
  const problems: string[] = [];
  let live = 0;
  for (const { sid, userId, phoneE164 } of logins.values()) {
    const session = byId.get(itemId(sessionKey(companyId, userId, sid)));
    if (!isLiveSession(session, nowSeconds)) continue;
    live++;
    const user = users.get(userId);
    if (!user || user.phone_e164 === phoneE164) continue;
    const madeTheChange = answered.phoneChanges.some(
      (change) => change.sid === sid && change.userId === userId && change.toE164 === user.phone_e164,
    );
    if (!madeTheChange)
      problems.push(
        `user ${userId}'s session ${sid}, begun by an OTP login to ${phoneE164}, is live though the user's phone is ${user.phone_e164}`,
      );
  }
  return { otpLogins: logins.size, live, problems };
}
