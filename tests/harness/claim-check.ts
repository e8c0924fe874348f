import { companyPrefix } from '../../lib/store/keys.js';
import { UserStatus } from '../../lib/store/user-status.js';
import type { StoredItem } from './table-snapshot.js';

// The uniqueness of phones and emails, checked over a company's items as stored (issue 30): a
// claim item is one per (company, value, user type) by its key, so "claimed twice" shows on the
// records' side. No vitest here: scripts/chaos.ts uses it too.

/** Statuses whose user holds the claims of their phone and email (a reclaimed, deleted or erased user holds none). */
const HOLDING: ReadonlySet<number> = new Set([UserStatus.ACTIVE, UserStatus.DISABLED]);

export interface ClaimCheck {
  phoneClaims: number;
  emailClaims: number;
  /** Users that hold claims (active or disabled). */
  holders: number;
  /** A description of each broken rule; empty when all hold. */
  problems: string[];
}

/**
 * Every phone and email claim of the company is held by a user whose record has that value and
 * user type and who holds claims (none by nobody, none by a user who moved on, none by a user
 * reclaimed, deleted or erased: only an active user, or a disabled one, whose claims keep the
 * number and email from others); every phone claim carries its holder's status (a disabled user's
 * claim says so, so that it gets no login code); every holding user's phone and email (if any) are
 * claimed by that user; no two holding users record the same phone or email for one user type.
 */
export function claimCheck(items: StoredItem[], companyId: string): ClaimCheck {
  const prefix = companyPrefix(companyId);
  const problems: string[] = [];
  const users = new Map(
    items.filter((item) => item.sk === 'PROFILE' && item.pk.startsWith(`${prefix}#USER#`)).map((user) => [user.user_id as string, user]),
  );
  const statusOf = (item: StoredItem) => Number(item.status_id ?? UserStatus.ACTIVE);
  const holds = (user: StoredItem) => HOLDING.has(statusOf(user));
  const recorded = (user: StoredItem, kind: 'PHONE' | 'EMAIL') => (kind === 'PHONE' ? user.phone_e164 : user.email) as string | undefined;

  const claims = new Map<string, StoredItem>();
  const claimPattern = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}#(PHONE|EMAIL)#(.+)#TYPE#(\\d+)$`);
  const counts = { PHONE: 0, EMAIL: 0 };
  for (const claim of items.filter((item) => item.sk === 'CLAIM')) {
    const match = claimPattern.exec(claim.pk);
    if (!match) continue;
    const [, kind, value, type] = match as unknown as [string, 'PHONE' | 'EMAIL', string, string];
    counts[kind]++;
    claims.set(claim.pk, claim);
    const what = `${kind.toLowerCase()} ${value} (type ${type})`;
    const holder = users.get(claim.user_id);
    if (!holder) problems.push(`${what} is claimed by nobody (user ${claim.user_id} is not stored)`);
    else if (recorded(holder, kind) !== value || String(holder.user_type) !== type)
      problems.push(`${what} is claimed by user ${claim.user_id}, whose record has ${recorded(holder, kind) ?? 'none'}`);
    else if (!holds(holder)) problems.push(`${what} is claimed by user ${claim.user_id} of status ${holder.status_id}`);
    // A phone claim carries its holder's status, which login_phone reads: one marked active while
    // its holder is disabled (a change that raced the disable) sends that user login codes.
    else if (kind === 'PHONE' && statusOf(claim) !== statusOf(holder))
      problems.push(`${what} is marked status ${statusOf(claim)}, but its holder ${claim.user_id} is of status ${statusOf(holder)}`);
  }

  const recordedBy = new Map<string, string[]>();
  let holders = 0;
  for (const [id, user] of users) {
    if (!holds(user)) continue;
    holders++;
    for (const kind of ['PHONE', 'EMAIL'] as const) {
      const value = recorded(user, kind);
      if (value === undefined || value === null) continue;
      const pk = `${prefix}#${kind}#${value}#TYPE#${user.user_type}`;
      recordedBy.set(pk, [...(recordedBy.get(pk) ?? []), id]);
      const claim = claims.get(pk);
      if (!claim) problems.push(`user ${id}'s ${kind.toLowerCase()} ${value} is claimed by nobody`);
      else if (claim.user_id !== id) problems.push(`user ${id}'s ${kind.toLowerCase()} ${value} is claimed by user ${claim.user_id}`);
    }
  }
  for (const [pk, ids] of recordedBy)
    if (ids.length > 1) problems.push(`${ids.length} users (${ids.join(', ')}) record ${pk.slice(prefix.length + 1)}`);
  return { phoneClaims: counts.PHONE, emailClaims: counts.EMAIL, holders, problems };
}
