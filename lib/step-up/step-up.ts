import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { type DeviceRefusal, deviceRefused, provenDevice } from '../devices/device-proof.js';
import { AppError } from '../errors.js';
import { audit } from '../observability/audit.js';
import { assertionSpendWrites, checkedAssertion } from '../passkeys/passkey-login.js';
import type { AssertionInput } from '../passkeys/passkey-schemas.js';
import { assertionRefused } from '../passkeys/passkey-verification.js';
import { checkPinAndAudit, devicePinCheck } from '../pins/check-pin-and-audit.js';
import { tokenTypeOf } from '../sessions/access-tokens.js';
import { signAccessToken } from '../sessions/jwt.js';
import { acrOfSession, needs } from '../sessions/session-strength.js';
import { attemptIdOf } from '../store/attempt-sets.js';
import { sessionKey } from '../store/keys.js';
import { clearPinTriesAfter } from '../store/pin-store.js';
import { type SessionRecord, stepUpSession } from '../store/session-store.js';
import { ConditionsFailed, writeTransaction } from '../store/transactions.js';
import { UserStatus } from '../store/user-status.js';
import { getUser } from '../store/user-store.js';
import type { StepUpCall } from './step-up-input.js';
import type { StepUpResult } from './step-up-result.js';

/**
 * Steps a strong session up (API contract 3.15, second reading): a strong session proven longer than
 * STEP_UP_MAX_AGE_SECONDS ago (a phone left unlocked for days) may not reset a PIN, move the number or
 * say "Not me" until its own settled device proves itself again, as a PIN login does (signature over
 * "step_up\n...", nonce once, the PIN counted on the device's tally). The session keeps its sid and
 * its strength; its auth_time becomes now and a new access token says so. An SMS-strength session
 * cannot be stepped up to strong: 403 code 5 with needs "strong".
 */
export async function stepUp(app: App, call: StepUpCall): Promise<StepUpResult> {
  const { body, principal } = call;
  if (principal.session?.acr !== 'strong')
    throw needs('strong', 'only a strong session steps up: log in by PIN on a settled device, or with a passkey');
  if ('passkey' in body) return stepUpByPasskey(app, call, body.passkey);
  return stepUpByDevice(app, { ...call, body });
}

/**
 * A step-up by a passkey of the session's user (contract 3.15, second reading): the assertion verified
 * as a passkey login's, its challenge taken and counter moved; then the session's auth_time is now.
 */
async function stepUpByPasskey(app: App, { company, principal, origin }: StepUpCall, assertion: AssertionInput): Promise<StepUpResult> {
  const { companyId, userId, sessionId } = principal;
  const verified = await checkedAssertion(app, company, origin, assertion);
  if (verified.passkey.user_id !== userId) throw assertionRefused(app, origin, companyId, 'wrong_user_handle');
  try {
    await writeTransaction(app.table, assertionSpendWrites(app, companyId, verified));
  } catch (error) {
    if (error instanceof ConditionsFailed) throw assertionRefused(app, origin, companyId, 'raced');
    throw error;
  }
  const now = epochSeconds(app.clock);
  const stepped = await stepUpSession(app.table, sessionKey(companyId, userId, sessionId), { now });
  if (!stepped) throw new AppError('UNAUTHORIZED', { detail: 'the session ended meanwhile' });
  return steppedUp(app, origin, principal, stepped, now);
}

async function steppedUp(
  app: App,
  origin: StepUpCall['origin'],
  { companyId, userId, sessionId }: StepUpCall['principal'],
  stepped: SessionRecord,
  now: number,
): Promise<StepUpResult> {
  const claims = {
    companyId,
    userId,
    sessionId,
    userType: stepped.user_type,
    began: stepped.began ?? 'pin',
    authTime: now,
    acr: acrOfSession(stepped),
    jkt: stepped.dpop_jkt,
  };
  const access = await signAccessToken(app, claims, stepped.expires_at);
  audit(app, origin, 'step_up', { company_id: companyId, user_id: userId, outcome: 'stepped_up' });
  return { message: 'Stepped up', token: { type: tokenTypeOf(claims), token: access.token }, expires_in: access.expiresIn };
}

async function stepUpByDevice(
  app: App,
  {
    body: input,
    principal,
    origin,
    idempotencyRef,
  }: Omit<StepUpCall, 'body'> & { body: Exclude<StepUpCall['body'], { passkey: unknown }> },
): Promise<StepUpResult> {
  const { companyId, userId, sessionId } = principal;
  const session = principal.session!;
  const attemptId = attemptIdOf(idempotencyRef);
  const refused = (reason: DeviceRefusal) => deviceRefused(app, origin, companyId, reason, userId);
  // The session's own device, and no other: a step-up proves the phone the session lives on.
  if (input.device_key !== session.deviceKey) throw refused('not_this_session');
  const { device, nonceTaken } = await provenDevice(app, { companyId, origin, attemptId }, input, 'step_up');
  if (device.user_id !== userId) throw refused('not_this_session');
  const [fresh, user] = await Promise.all([nonceTaken, getUser(app.table, companyId, userId, true)]);
  if (!fresh) throw refused('replayed_nonce');
  if (user?.status_id !== UserStatus.ACTIVE) throw refused('user_not_active');
  const check = devicePinCheck(user, input, attemptId);
  await checkPinAndAudit(app, origin, check, 'step_up');
  const now = epochSeconds(app.clock);
  // A right PIN clears its tally, as a PIN login's does (only while it holds this attempt's try), beside
  // the step-up (best effort: a right PIN counts toward no lock either way).
  const [stepped] = await Promise.all([
    stepUpSession(app.table, sessionKey(companyId, userId, sessionId), { deviceKey: input.device_key, now }),
    clearPinTriesAfter(app.table, check, attemptId).catch(() => undefined),
  ]);
  if (!stepped) throw new AppError('UNAUTHORIZED', { detail: 'the session ended meanwhile' });
  return steppedUp(app, origin, principal, stepped, now);
}
