import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, AttributeValue as StreamAttributeValue } from 'aws-lambda';
import { PENDING_CHANGE_PREFIX, SESSION_PREFIX, USER_DEVICE_PREFIX, USER_PASSKEY_PREFIX, USER_SORT_KEY } from '../store/keys.js';
import { SESSION_END_REASONS, type SessionEndReason } from '../store/session-store.js';
import { UserStatus } from '../store/user-status.js';
import type { EventBase, WalletEvent } from './event-types.js';

// The events of API contract 3.13 read from the table's stream: each is what one committed write
// changed, seen in the item's images before and after. So a refused or failed request, which
// wrote nothing, has none, and a committed one has its event however the function that wrote it
// ended: the stream holds the write, not the function. Ending a session marks its item with why
// (lib/store/session-store.ts), which is how session.ended knows its reason.

/** A user's own item, a session, a device or a pending phone change of theirs: C#<company>#USER#<user>. */
const USER_PARTITION = /^C#([^#]+)#USER#([^#]+)$/;
/** A company's staff record: its hash chain (lib/store/keys.ts, staffChainKey). */
const STAFF_LOG_PARTITION = /^C#([^#]+)#STAFFLOG$/;
const PIN_TRIES = /^PINTRIES#(login|transaction)(?:#|$)/;
/** The `sid` claim of a signed access token (lib/sessions/jwt.ts): 128 random bits in hex. */
const ACCESS_TOKEN_SID = /^[0-9a-f]{32}$/;

/** The fields of the profile a user changes (API contract 3.11): user.profile_updated names them. */
const PROFILE_FIELDS = ['first_name', 'last_name', 'email', 'image', 'birth_date', 'location_point'] as const;

type Image = Record<string, unknown>;

function imageOf(image: { [key: string]: StreamAttributeValue } | undefined): Image | undefined {
  // The stream's AttributeValue is DynamoDB's own JSON, the shape unmarshall takes.
  return image ? unmarshall(image as Parameters<typeof unmarshall>[0]) : undefined;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The events one stream record stands for (most stand for none). Each event's id is the record's
 * id, with its place when a record stands for more than one: a record delivered again (Lambda
 * retries a batch) gives the same ids.
 */
export function eventsOfRecord(record: DynamoDBRecord, sessions: SessionLimits): WalletEvent[] {
  const keys = imageOf(record.dynamodb?.Keys);
  const staffLog = typeof keys?.pk === 'string' ? STAFF_LOG_PARTITION.exec(keys.pk) : null;
  if (staffLog) return staffActionEvents(record, staffLog[1]!);
  const match = typeof keys?.pk === 'string' ? USER_PARTITION.exec(keys.pk) : null;
  if (!match || typeof keys?.sk !== 'string' || !record.eventID) return [];
  const [, companyId, userId] = match as unknown as [string, string, string];
  const sk = keys.sk;
  const before = imageOf(record.dynamodb?.OldImage);
  const after = imageOf(record.dynamodb?.NewImage);
  const recordedAt = Math.round(Number(record.dynamodb?.ApproximateCreationDateTime ?? 0) * 1000);
  const found: Array<{ type: WalletEvent['type']; fields?: Record<string, unknown>; at?: number }> = [];

  if (sk === USER_SORT_KEY) {
    const at = userChangeTime(before, after);
    found.push(...userChanges(record.eventName, before, after).map((change) => ({ ...change, at })));
  } else if (sk.startsWith(PENDING_CHANGE_PREFIX)) {
    found.push(...pendingChanges(record.eventName, before, after));
  } else if (sk.startsWith(SESSION_PREFIX)) {
    const sid = sk.slice(SESSION_PREFIX.length);
    const ended = sessionEnded(before, after, sessions);
    // An opaque token's session (from before 3.12) is keyed by the token's SHA-256: no sid claim to
    // give, and a hash may not be published. Only this service ever verified those tokens.
    if (ended && ACCESS_TOKEN_SID.test(sid)) {
      found.push({ type: 'session.ended', fields: { sid, reason: ended.reason }, at: ended.at });
    }
  } else if (sk.startsWith(USER_DEVICE_PREFIX)) {
    if (record.eventName === 'INSERT') {
      // A device bound by an OTP login is on probation (contract 3.15): a push service can tell the settled ones.
      found.push({
        type: 'device.added',
        fields: { settled: after?.probation_since === undefined ? 1 : 0 },
        at: secondsToMs(after?.created_at),
      });
    }
    // DynamoDB's own deletions (TTL) are no removal by anyone; a device has no TTL, but a stray one would not be news.
    if (record.eventName === 'REMOVE' && record.userIdentity?.type !== 'Service') found.push({ type: 'device.removed' });
  } else if (sk.startsWith(USER_PASSKEY_PREFIX)) {
    // Passkeys (contract 3.16): added, removed (never by TTL: a passkey has none), or marked cloned.
    const passkeyId = sk.slice(USER_PASSKEY_PREFIX.length);
    if (record.eventName === 'INSERT')
      found.push({ type: 'passkey.added', fields: { passkey_id: passkeyId }, at: secondsToMs(after?.created_at) });
    if (record.eventName === 'REMOVE' && record.userIdentity?.type !== 'Service')
      found.push({ type: 'passkey.removed', fields: { passkey_id: passkeyId } });
    if (record.eventName === 'MODIFY' && after?.cloned_at !== undefined && before?.cloned_at !== after.cloned_at) {
      found.push({ type: 'passkey.cloned', fields: { passkey_id: passkeyId }, at: secondsToMs(after.cloned_at) });
    }
  } else {
    const pin = PIN_TRIES.exec(sk);
    if (pin && after?.locked_at !== undefined && before?.locked_at === undefined) {
      found.push({ type: 'pin.locked', fields: { pin_type: pin[1] }, at: secondsToMs(after.locked_at) });
    }
  }

  return found.map(({ type, fields, at }, index) => {
    const base: EventBase = {
      event_id: index === 0 ? record.eventID! : `${record.eventID}.${index}`,
      company_id: companyId,
      user_id: userId,
      occurred_at: at ?? recordedAt,
    };
    return { type, detail: { ...base, ...fields } } as WalletEvent;
  });
}

/** Epoch seconds as UNIX milliseconds; undefined for anything else. */
function secondsToMs(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value * 1000 : undefined;
}

/**
 * When the write of a user's item happened, by the item's own clock (to the second): the stream's
 * record time is to the second in AWS and to the minute in DynamoDB Local. Undefined: the record's.
 */
function userChangeTime(before: Image | undefined, after: Image | undefined): number | undefined {
  if (!after) return undefined;
  if (after.erased_at !== undefined && before?.erased_at === undefined) return secondsToMs(after.erased_at);
  if (!before) return secondsToMs(after.created_at);
  return before.updated_at !== after.updated_at ? secondsToMs(after.updated_at) : undefined;
}

/** What a write of a user's own item changed that the wallet acts on. */
function userChanges(
  eventName: DynamoDBRecord['eventName'],
  before: Image | undefined,
  after: Image | undefined,
): Array<{ type: WalletEvent['type']; fields?: Record<string, unknown> }> {
  if (eventName === 'INSERT') return after ? [{ type: 'user.registered' }] : [];
  if (eventName !== 'MODIFY' || !before || !after) return [];
  const from = before.status_id;
  const to = after.status_id;
  if (from !== to) {
    if (to === UserStatus.DISABLED) return [{ type: 'user.disabled' }];
    if (from === UserStatus.DISABLED && to === UserStatus.ACTIVE) return [{ type: 'user.enabled' }];
    if (to === UserStatus.DELETION_REQUESTED) return [{ type: 'user.deleted', fields: { erase_after: after.erase_after } }];
    if (to === UserStatus.ERASED) return [{ type: 'user.erased' }];
    if (from === UserStatus.DELETION_REQUESTED && to === UserStatus.ACTIVE) return [{ type: 'user.restored' }];
    // A reclaim (3) is told by the holder's sessions that end; nothing else moves a status.
    return [];
  }
  // An erased account's last step strips its data: no change of the user's own.
  if (to === UserStatus.ERASED) return [];
  const changes: Array<{ type: WalletEvent['type']; fields?: Record<string, unknown> }> = [];
  if (before.phone_e164 !== after.phone_e164) changes.push({ type: 'user.phone_changed' });
  const changed = PROFILE_FIELDS.filter((field) => !same(before[field], after[field]));
  if (changed.length) changes.push({ type: 'user.profile_updated', fields: { changed } });
  return changes;
}

/**
 * What a write of a user's pending change means (lib/store/pending-change-store.ts): a new change is
 * pending; the live one it replaced, or one marked ended (cancelled, void, undone), is cancelled.
 * Every kind is told as user.change_pending and user.change_cancelled (contract 3.15); a phone change
 * also as user.phone_change_pending and user.phone_change_cancelled (3.11). A change deleted as it
 * takes effect tells nothing here: the user's record says what changed. (Its deletion, as its TTL's,
 * is a REMOVE, which the filter drops.)
 */
function pendingChanges(
  eventName: DynamoDBRecord['eventName'],
  before: Image | undefined,
  after: Image | undefined,
): Array<{ type: WalletEvent['type']; fields?: Record<string, unknown>; at?: number }> {
  if ((eventName !== 'INSERT' && eventName !== 'MODIFY') || !after) return [];
  const changes: Array<{ type: WalletEvent['type']; fields?: Record<string, unknown>; at?: number }> = [];
  // A recovery awaiting its approval (contract 3.14) is not pending yet: its approval makes it so.
  const running = (image: Image) => image.ended_reason === undefined && image.awaiting_approval === undefined;
  // Items of round 5 were phone changes with no kind.
  const kindOf = (image: Image) => (typeof image.kind === 'string' ? image.kind : 'phone');
  const pending = (image: Image, at: unknown, toldInRound5 = false) => {
    const fields = { change_id: image.change_id, effective_at: image.effective_at, via: image.via };
    const told: Array<{ type: WalletEvent['type']; fields: Record<string, unknown>; at?: number }> = [
      { type: 'user.change_pending', fields: { ...fields, kind: kindOf(image) }, at: secondsToMs(at) },
    ];
    if (kindOf(image) === 'phone' && !toldInRound5) told.unshift({ type: 'user.phone_change_pending', fields, at: secondsToMs(at) });
    return told;
  };
  const cancelled = (image: Image, reason: unknown, at: unknown) => {
    const told: Array<{ type: WalletEvent['type']; fields: Record<string, unknown>; at?: number }> = [
      { type: 'user.change_cancelled', fields: { change_id: image.change_id, kind: kindOf(image), reason }, at: secondsToMs(at) },
    ];
    if (kindOf(image) === 'phone')
      told.unshift({ type: 'user.phone_change_cancelled', fields: { change_id: image.change_id }, at: secondsToMs(at) });
    return told;
  };
  const replaced = before !== undefined && before.change_id !== after.change_id;
  if (replaced && running(before)) changes.push(...cancelled(before, 'replaced', after.created_at));
  if (!before || replaced) {
    // A round-5 change that npm run changes:migrate moved here had its user.phone_change_pending then.
    if (running(after)) changes.push(...pending(after, after.created_at, !before && after.migrated_at !== undefined));
  } else if (before.awaiting_approval !== undefined && running(after)) {
    changes.push(...pending(after, after.approved_at));
  } else if (running(before) && after.ended_reason !== undefined) {
    changes.push(...cancelled(after, after.ended_reason, after.ended_at));
  }
  return changes;
}

/** What makes a session run out (lib/config.ts): past it, a session ends with no event. */
export interface SessionLimits {
  sessionIdleSeconds: number;
}

/** A session that was live and now is marked ended: why and when. A session past its time ends with no event. */
function sessionEnded(
  before: Image | undefined,
  after: Image | undefined,
  { sessionIdleSeconds }: SessionLimits,
): { reason: SessionEndReason; at: number } | undefined {
  if (!before || !after || before.ended_reason !== undefined || after.ended_reason === undefined) return undefined;
  const reason = after.ended_reason as SessionEndReason;
  const at = Number(after.ended_at_ms);
  if (!SESSION_END_REASONS.includes(reason) || !Number.isFinite(at)) return undefined;
  // Past its lifetime (expires_at) or idle for longer than allowed, it had already run out (access-tokens.ts sessionIsLive).
  if (typeof before.expires_at === 'number' && before.expires_at * 1000 <= at) return undefined;
  if (typeof before.last_used_at === 'number' && (before.last_used_at + sessionIdleSeconds) * 1000 <= at) return undefined;
  return { reason, at };
}

/** admin.action: a back-office action recorded in its company's log (an INSERT), without its reason. */
function staffActionEvents(record: DynamoDBRecord, companyId: string): WalletEvent[] {
  const after = imageOf(record.dynamodb?.NewImage);
  if (record.eventName !== 'INSERT' || !record.eventID || !after || typeof after.actor_id !== 'string') return [];
  const detail = {
    event_id: record.eventID,
    company_id: companyId,
    ...(typeof after.user_id === 'string' ? { user_id: after.user_id } : {}),
    occurred_at: Number(after.at_ms),
    actor_id: after.actor_id,
    action: String(after.action),
    // Its place in the company's chain and its hash: a subscriber that keeps the latest outside the
    // table holds an anchor for `npm run staff:verify -- --anchor SEQ:HASH`.
    seq: Number(after.seq),
    record_hash: String(after.record_hash),
  };
  return [{ type: 'admin.action', detail }];
}
