import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import type { CodeTarget } from '../codes/otp-codes.js';
import { hashToken, randomToken } from '../secrets/hashing.js';
import { putPhoneProof } from '../store/proof-store.js';

// A verification_token: the proof, handed to the client by verify_otp for otp_type 2 to 4, that
// it received a code on a phone. 256 random bits, stored only as their SHA-256, single use,
// valid config.verificationTokenTtlSeconds, bound to company, phone, user type and purpose (and
// for top-up and KYC to the token's user). Registration consumes a type-2 proof.

export async function issuePhoneProof(app: App, companyId: string, target: CodeTarget, userId: string | undefined): Promise<string> {
  const proof = randomToken();
  const now = epochSeconds(app.clock);
  await putPhoneProof(app.table, companyId, hashToken(proof), {
    phone_e164: target.phone_e164,
    user_type: target.user_type,
    otp_type: target.otp_type,
    user_id: userId,
    created_at: now,
    expires_at: now + app.config.verificationTokenTtlSeconds,
  });
  return proof;
}
