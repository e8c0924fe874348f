import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { queryPasskeys, storeChallenge } from '../store/passkey-store.js';
import { UserStatus } from '../store/user-status.js';
import { getPhoneClaim } from '../store/user-store.js';
import { phonePlan } from '../users/phone-number.js';
import { UserType } from '../users/user-types.js';
import type { PasskeyLoginOptionsInput } from './passkey-login-options-input.js';
import { CHALLENGE_SECONDS, decoyCredentialIds, type NamedCredential, newChallenge, requestOptions } from './passkey-options.js';
import type { PasskeyLoginOptionsResult, PasskeyPublicCall } from './passkey-schemas.js';
import { requireWebauthn } from './webauthn-settings.js';

// A passkey login's options (API contract 3.16): a single-use challenge, and with a phone typed the
// credentials to allow, the same shape for every phone. The login itself: passkey-login.ts.

/**
 * POST /wallet/v3/auth/passkeys/login/options: a login challenge (single-use, 300 s). With a phone,
 * the credentials to allow: the holder's passkeys, or for a phone with none (no account, or no
 * passkey) ids derived by HMAC from the phone, so every phone answers the same shape.
 */
export async function passkeyLoginOptions(
  app: App,
  { body, company }: PasskeyPublicCall<PasskeyLoginOptionsInput>,
): Promise<PasskeyLoginOptionsResult> {
  const settings = requireWebauthn(company);
  const companyId = company.company_id;
  let allow: NamedCredential[] | undefined;
  if (body.dial_code !== undefined && body.phone_number !== undefined) {
    const phoneE164 = (await phonePlan()).toE164(body.dial_code, body.phone_number)!;
    const userType = body.user_type ?? UserType.CUSTOMER;
    const claim = await getPhoneClaim(app.table, companyId, phoneE164, userType);
    const held = claim?.status_id === UserStatus.ACTIVE ? await queryPasskeys(app.table, companyId, claim.user_id) : [];
    allow = held.length
      ? held.map((passkey) => ({ id: passkey.credential_id, transports: passkey.transports }))
      : (await decoyCredentialIds(app, companyId, phoneE164, userType)).map((id) => ({ id, transports: ['internal', 'hybrid'] }));
  }
  const options = requestOptions({ rpId: settings.rp_id, challenge: newChallenge(), allow });
  const now = epochSeconds(app.clock);
  await storeChallenge(app.table, companyId, options.challenge, { purpose: 'login', expires_at: now + CHALLENGE_SECONDS });
  return { message: 'Sign with a passkey, then send the response to passkeys/login', options: { ...options } };
}
