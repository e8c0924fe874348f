// The kinds of item serverless/key-kinds.cjs names, told apart as IAM tells them (by the partition
// key's pattern, dynamodb:LeadingKeys) and, where kinds share a partition, by their sort keys: what
// tests/deploy/function-permissions.test.ts records each request as, and what key-kinds.test.ts checks.
import { createRequire } from 'node:module';
import { newId } from '../../lib/ids.js';
import {
  AWAITING_RECOVERY_PREFIX,
  adminCountKey,
  changeFreezeKey,
  deviceIndexKey,
  deviceNonceKey,
  GRANT_PREFIX,
  type ItemKey,
  NOTIFICATION_PREFIX,
  PENDING_CHANGE_PREFIX,
  REFERRAL_COUNT_PREFIX,
  SESSION_PREFIX,
  STAFF_ACTION_PREFIX,
  UNREAD_COUNT_PREFIX,
  USER_DEVICE_PREFIX,
  USER_PASSKEY_PREFIX,
  userKey,
  userPasskeyCountKey,
} from '../../lib/store/keys.js';

export const keyKinds = createRequire(import.meta.url)('../../serverless/key-kinds.cjs') as Record<string, string>;

/** An IAM StringLike pattern as a regular expression: ? is one character, * any run. */
const likePattern = (pattern: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.')}$`,
  );
const partitions = Object.entries(keyKinds).map(([kind, pattern]) => ({ kind, pattern, matches: likePattern(pattern) }));
/** The kinds that share a partition pattern (a user's, a device's), which IAM cannot tell apart, by their sort keys. */
const BY_SORT_KEY: [string, (sk: string) => boolean][] = [
  ['session', (sk) => sk.startsWith(SESSION_PREFIX)],
  ['notification', (sk) => sk.startsWith(NOTIFICATION_PREFIX)],
  ['referralCount', (sk) => sk.startsWith(REFERRAL_COUNT_PREFIX)],
  ['unreadCount', (sk) => sk.startsWith(UNREAD_COUNT_PREFIX)],
  // A Query of a user's whole partition (their export) names no sort key: it is the user's.
  ['user', (sk) => sk === userKey(newId(), newId()).sk || sk === ''],
  ['pinTries', (sk) => sk.startsWith('PINTRIES#')],
  ['pinDaily', (sk) => sk.startsWith('PINDAY#')],
  ['smsPayments', (sk) => sk.startsWith('SMSPAY#')],
  ['staffAction', (sk) => sk.startsWith(STAFF_ACTION_PREFIX)],
  ['adminCount', (sk) => sk === adminCountKey(newId()).sk],
  ['adminSeat', (sk) => sk.startsWith('SEAT#')],
  // A Query of what awaits approval names no sort key: it is the grants' (and the recoveries listed beside them).
  ['grant', (sk) => sk.startsWith(GRANT_PREFIX) || sk === ''],
  ['awaitingRecovery', (sk) => sk.startsWith(AWAITING_RECOVERY_PREFIX)],
  ['userDevice', (sk) => sk.startsWith(USER_DEVICE_PREFIX)],
  ['deviceIndex', (sk) => sk === deviceIndexKey(newId(), newId()).sk],
  ['deviceNonce', (sk) => sk === deviceNonceKey(newId(), newId(), 'n').sk.slice(0, -1) || sk.startsWith('NONCE#')],
  ['pendingChange', (sk) => sk.startsWith(PENDING_CHANGE_PREFIX)],
  ['userPasskey', (sk) => sk.startsWith(USER_PASSKEY_PREFIX)],
  ['userPasskeyCount', (sk) => sk === userPasskeyCountKey(newId(), newId()).sk],
  ['changeFreeze', (sk) => sk === changeFreezeKey(newId(), newId()).sk],
];

/** The kind of item a key is: the one partition pattern it matches, and in a user's partition its sort key. */
export function kindOf({ pk, sk }: ItemKey): string {
  const patterns = new Set(partitions.filter(({ matches }) => matches.test(pk)).map(({ pattern }) => pattern));
  if (patterns.size !== 1) throw new Error(`${pk} matches ${patterns.size} partition patterns of serverless/key-kinds.cjs`);
  const kinds = partitions.filter(({ pattern }) => patterns.has(pattern)).map(({ kind }) => kind);
  if (kinds.length === 1) return kinds[0]!;
  const kind = BY_SORT_KEY.find(([name, holds]) => kinds.includes(name) && holds(sk))?.[0];
  if (!kind) throw new Error(`${pk} ${sk}: no kind of item of serverless/key-kinds.cjs`);
  return kind;
}
