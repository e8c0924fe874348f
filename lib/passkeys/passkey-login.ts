import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import type { Company } from '../companies/companies.js';
import { AppError } from '../errors.js';
import { audit, type RequestOrigin } from '../observability/audit.js';
import { grantWithOwnerWrites, loginAnswer, ownerPresentWrites } from '../pins/owner-login.js';
import { type NotMeUndo, notMeUndo } from '../security/not-me.js';
import type { SessionTokens } from '../sessions/access-tokens.js';
import { GrantRefused, grantSession } from '../sessions/session-grant.js';
import { loginSessionKey } from '../sessions/session-key.js';
import { queryDevicesAndChanges } from '../store/device-store.js';
import { challengeTake, type PasskeyRecord, passkeyClonedWrite, passkeyUseWrite } from '../store/passkey-store.js';
import { type PendingChange, withKind } from '../store/pending-change-store.js';
import { type LabelledItem, writeTransaction } from '../store/transactions.js';
import { UserStatus } from '../store/user-status.js';
import { getUser } from '../store/user-store.js';
import type { AssertionInput, PasskeyLoginInput, PasskeyLoginResult, PasskeyPublicCall } from './passkey-schemas.js';
import { assertionRefused, type VerifiedAssertion, verifiedAssertion } from './passkey-verification.js';

// A passkey login (API contract 3.16): no token, no SMS. It answers as a PIN login on a settled device
// does: a strong session (amr ["hwk","user"], acr strong) that holds devices still in their probation
// window and voids a held reset of the login PIN, with what waits and which devices are on probation;
// with not_me: 1, "Not me" runs in the transaction that begins it. The session remembers its passkey:
// removing the passkey ends it. The challenge is taken and the counter moved in that same transaction,
// so a replay or a race with the passkey's removal gets no session, and a refusal writes nothing.

/** An assertion verified and a clone's mark written when its counter went back (event passkey.cloned). */
export function checkedAssertion(app: App, company: Company, origin: RequestOrigin, input: AssertionInput): Promise<VerifiedAssertion> {
  const now = epochSeconds(app.clock);
  const markCloned = async (passkey: PasskeyRecord) => {
    await writeTransaction(app.table, [{ label: 'cloned', item: passkeyClonedWrite(app.table, company.company_id, passkey, now) }]).catch(
      () => undefined,
    );
  };
  return verifiedAssertion(app, company, origin, input, now, markCloned);
}

/** The writes that spend an assertion: its challenge taken once, the counter moved from the value checked. */
export function assertionSpendWrites(app: App, companyId: string, verified: VerifiedAssertion): LabelledItem<string>[] {
  const now = epochSeconds(app.clock);
  return [
    { label: 'challenge', item: challengeTake(app.table, companyId, verified.challenge, now) },
    { label: 'passkey', item: passkeyUseWrite(app.table, companyId, verified.passkey, verified.newCounter, now) },
  ];
}

/** POST /wallet/v3/auth/passkeys/login. */
export async function passkeyLogin(app: App, call: PasskeyPublicCall<PasskeyLoginInput>): Promise<PasskeyLoginResult> {
  const { body, company, origin, idempotencyRef } = call;
  const companyId = company.company_id;
  // A proof's key binds the session's tokens (contract 3.17); a company may require one.
  const dpopJkt = await loginSessionKey(call);
  const { not_me: notMe, ...assertion } = body;
  const verified = await checkedAssertion(app, company, origin, assertion);
  const { passkey } = verified;
  const userId = passkey.user_id;
  const now = epochSeconds(app.clock);
  const refused = (reason: Parameters<typeof assertionRefused>[3]) => assertionRefused(app, origin, companyId, reason);
  const [user, held] = await Promise.all([
    getUser(app.table, companyId, userId, true),
    queryDevicesAndChanges(app.table, companyId, userId),
  ]);
  if (user?.status_id !== UserStatus.ACTIVE) throw refused('user_not_active');
  const changes = held.changes.map((item) => withKind(item)!);
  const items: LabelledItem<string>[] = assertionSpendWrites(app, companyId, verified);
  const mine = { devices: held.devices, changes };
  let voided: PendingChange[] = [];
  let undo: NotMeUndo | undefined;
  if (notMe) {
    undo = await notMeUndo(app, user, mine, idempotencyRef, passkey.passkey_id);
    items.push(...undo.items.map(({ item }) => ({ label: 'not_me', item })));
    voided = changes;
  } else {
    const owner = ownerPresentWrites(app, user, mine, idempotencyRef, now);
    items.push(...owner.items);
    voided = owner.voided;
  }
  const grant = (withItems: LabelledItem<string>[]) =>
    grantSession(
      app,
      companyId,
      userId,
      user.user_type,
      { began: 'passkey', acr: 'strong', credentialAt: passkey.created_at, passkeyId: passkey.passkey_id, dpopJkt },
      {
        terms: {
          stamps: { strong_login_at: now },
          ...(undo?.devicesRemoved ? { deviceCount: { add: -undo.devicesRemoved } } : {}),
        },
        items: withItems,
      },
    );
  let tokens: SessionTokens;
  try {
    const granted = await grantWithOwnerWrites(grant, items);
    tokens = granted.tokens;
    if (!granted.ownerWritesKept) voided = [];
  } catch (error) {
    // The challenge spent meanwhile (a replay racing), the passkey removed or used meanwhile, the user gone.
    if (error instanceof GrantRefused) throw refused('raced');
    if (error instanceof AppError && error.errorName === 'UNAUTHORIZED') throw refused('user_not_active');
    throw error;
  }
  audit(app, origin, 'login', { company_id: companyId, user_id: userId, outcome: 'session_started', method: 'passkey', acr: 'strong' });
  return loginAnswer(app, origin, user, { tokens, undo, held: mine, voided, now });
}
