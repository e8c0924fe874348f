import { randomBytes } from 'node:crypto';
import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import {
  type Acr,
  endUnansweredSession,
  type GrantTerms,
  putSessionAlone,
  type SessionRecord,
  type SessionStart,
  sessionGrant,
  sessionPut,
} from '../store/session-store.js';
import { ConditionsFailed, type LabelledItem, type TransactItem, writeEachAlone, writeTransaction } from '../store/transactions.js';
import { type SessionTokens, sessionTokens } from './access-tokens.js';
import { newRefreshToken } from './refresh-tokens.js';

export type { SessionStart };

// Beginning a session (registration, OTP login, PIN login): its id, item and first tokens made
// together, and granted in one transaction only while the user is active. How a request presents
// a session, and when one is over: access-tokens.ts.

/** How a new session begins: by registration, OTP login or PIN login, on a bound device or none, and how strong it is. */
export interface SessionOrigin {
  began: SessionStart;
  deviceKey?: string | undefined;
  acr: Acr;
  /** When the credential it begins with was bound (a PIN login's device), epoch seconds. */
  credentialAt?: number | undefined;
  /** The passkey it begins with (API contract 3.16): its removal ends the session. */
  passkeyId?: string | undefined;
  /** The key of the login's DPoP proof (its RFC 7638 thumbprint): the session's tokens are bound to it for its life (contract 3.17). */
  dpopJkt?: string | undefined;
}

interface IssuedSession {
  /** The values for the client; they exist only in this answer. */
  tokens: SessionTokens;
  /** The transaction item that stores the session. */
  write: TransactItem;
}

type SessionParts = Pick<App, 'table' | 'clock' | 'config' | 'keys' | 'signingKeys'>;

/** A new session's id: the `sid` of its access tokens, not a secret (other services see it). */
const newSessionId = () => randomBytes(16).toString('hex');

/** A new session's tokens and the transaction item that stores it, for a write that creates its user too. */
export async function issueSession(
  app: SessionParts,
  companyId: string,
  userId: string,
  userType: number,
  start: SessionOrigin,
): Promise<IssuedSession> {
  const now = epochSeconds(app.clock);
  const sessionId = newSessionId();
  const refresh = await newRefreshToken(app, companyId, { userId, sessionId }, 1);
  const record: SessionRecord = {
    user_type: userType,
    began: start.began,
    acr: start.acr,
    ...(start.credentialAt !== undefined ? { credential_at: start.credentialAt } : {}),
    ...(start.deviceKey ? { device_key: start.deviceKey } : {}),
    ...(start.passkeyId ? { passkey_id: start.passkeyId } : {}),
    ...(start.dpopJkt ? { dpop_jkt: start.dpopJkt } : {}),
    created_at: now,
    last_used_at: now,
    expires_at: now + app.config.tokenTtlSeconds,
    refresh_hash: refresh.hash,
    refresh_gen: 1,
  };
  const claims = { companyId, userId, sessionId, userType, began: start.began, authTime: now, acr: start.acr, jkt: start.dpopJkt };
  return {
    tokens: await sessionTokens(app, claims, record.expires_at, refresh.token),
    write: sessionPut(app.table, companyId, userId, sessionId, record),
  };
}

/** What else a session grant writes or requires, in its one transaction (a device bound or used, a PIN's count cleared). */
export interface GrantWith<Label extends string> {
  terms?: GrantTerms;
  items?: LabelledItem<Label>[];
  /**
   * The session first, then the user's side and each item as a write of its own (grantInSteps):
   * for items that only check and stamp what they write (a PIN login's device and tally), at 1 WRU
   * each instead of a transaction's 2.
   */
  inSteps?: boolean;
}

/** A grant refused by a condition other than the user's: the labels of the items it guarded. */
export class GrantRefused<Label extends string> extends Error {
  constructor(readonly labels: Label[]) {
    super(`session grant refused: ${labels.join(', ')}`);
    this.name = 'GrantRefused';
  }
}

/**
 * A new session for an existing user, granted only while the user is active (one transaction:
 * the session, the user's session count and whatever else the grant comes with). Refused with
 * UNAUTHORIZED when the user's conditions fail (not active, a PIN changed since compared, the
 * device count reached), with GrantRefused naming the other items whose conditions failed.
 */
export async function grantSession<Label extends string>(
  app: SessionParts,
  companyId: string,
  userId: string,
  userType: number,
  start: SessionOrigin,
  grant: GrantWith<Label> = {},
): Promise<SessionTokens> {
  const { tokens, write } = await issueSession(app, companyId, userId, userType, start);
  const rest: LabelledItem<string>[] = [
    { label: 'user', item: sessionGrant(app.table, companyId, userId, grant.terms) },
    ...(grant.items ?? []),
  ];
  try {
    if (grant.inSteps) await grantInSteps(app, write, rest);
    else await writeTransaction<string>(app.table, [{ label: 'session', item: write }, ...rest]);
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    // With a device counted, the user's condition may be the count raced by another binding: the caller reads again.
    if (error.labels.includes('user') && grant.terms?.deviceCount?.max === undefined)
      throw new AppError('UNAUTHORIZED', { detail: 'the user is not active, or changed meanwhile' });
    throw new GrantRefused(error.labels as Label[]);
  }
  return tokens;
}

/**
 * A grant as writes of their own, in an order that keeps the transaction's promise: the session
 * is stored first, then the user's side, then the items side by side, each under its condition.
 * - Whatever removes a device writes first and reads the device's sessions after, strongly
 *   consistently (device-binding.ts endLateSessions): its read finds this session, or the device's
 *   write below finds the device gone.
 * - Whatever ends all sessions conditions on session_version as read with them (end-sessions.ts; a
 *   support recovery too, which removes devices and reads no sessions again): the user's write
 *   below adds to it after the session is stored, so such a change either fails its condition and
 *   reads again (finding this session), or committed first, and then the user's conditions (active,
 *   the PIN's version) or the device's, written after the user's, find it.
 * A grant refused on the way ends its session before anything is answered: its tokens never leave.
 */
async function grantInSteps(app: SessionParts, session: TransactItem, rest: LabelledItem<string>[]): Promise<void> {
  if (!(await putSessionAlone(app.table, session))) throw new ConditionsFailed(['session']);
  // A session this leaves live (its end not written) is one whose tokens nobody holds.
  const end = () => endUnansweredSession(app.table, session, app.clock.now()).catch(() => undefined);
  const [user, ...items] = rest;
  let failed: string[];
  try {
    failed = await writeEachAlone(app.table, [user!]);
    if (!failed.length) failed = await writeEachAlone(app.table, items);
  } catch (error) {
    await end();
    throw error;
  }
  if (failed.length) {
    await end();
    throw new ConditionsFailed(failed);
  }
}
