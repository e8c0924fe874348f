import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { requireFreshStrong } from '../sessions/session-strength.js';
import { PASSKEYS_MAX, queryPasskeys, storeChallenge } from '../store/passkey-store.js';
import { UserStatus } from '../store/user-status.js';
import { getUser } from '../store/user-store.js';
import { CHALLENGE_SECONDS, creationOptions, newChallenge, userHandleOf } from './passkey-options.js';
import type { PasskeyOwnCall, PasskeyRegisterOptionsResult } from './passkey-schemas.js';
import { requireWebauthn } from './webauthn-settings.js';

// The first step of a passkey's registration (API contract 3.16): its creation options, plain JSON
// (passkey-options.ts), and their challenge stored for the asking session. The second step, the
// attestation verified: passkey-registration.ts.

/** POST /wallet/v3/auth/passkeys/register/options: the creation options, and their challenge stored for this session. */
export async function passkeyRegisterOptions(
  app: App,
  { company, principal }: PasskeyOwnCall<unknown>,
): Promise<PasskeyRegisterOptionsResult> {
  const settings = requireWebauthn(company);
  requireFreshStrong(app, principal, 'adding a passkey');
  const { companyId, userId, sessionId } = principal;
  const [user, passkeys] = await Promise.all([getUser(app.table, companyId, userId, true), queryPasskeys(app.table, companyId, userId)]);
  if (user?.status_id !== UserStatus.ACTIVE) throw new AppError('UNAUTHORIZED', { detail: 'the user is not active' });
  if (passkeys.length >= PASSKEYS_MAX) throw new AppError('DEVICE_LIMIT', { detail: `at most ${PASSKEYS_MAX} passkeys: remove one first` });
  const options = creationOptions({
    rp: { id: settings.rp_id, name: company.name },
    user: {
      id: await userHandleOf(app, companyId, userId),
      // What the platform shows beside the passkey: the number's last digits, never the whole number.
      name: `${company.name} ••${user.phone_e164.slice(-4)}`,
      displayName: user.first_name || company.name,
    },
    challenge: newChallenge(),
    exclude: passkeys.map((passkey) => ({ id: passkey.credential_id, transports: passkey.transports })),
  });
  const now = epochSeconds(app.clock);
  await storeChallenge(app.table, companyId, options.challenge, {
    purpose: 'register',
    session_id: sessionId,
    user_id: userId,
    expires_at: now + CHALLENGE_SECONDS,
  });
  return { message: 'Create the passkey with these options, then send its response to passkeys/register', options: { ...options } };
}
