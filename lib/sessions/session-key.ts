import type { RequestProof } from '../call.js';
import type { Company } from '../companies/companies.js';
import { fieldError } from '../errors.js';
import { thumbprintOfSpki } from './dpop-proofs.js';

// The key a new session's tokens are bound to (DPoP, contract 3.17): the login's proof's, fixed for
// the session's life. A company may require one; a login that also binds or uses a device key must
// prove with that very key, so the session and the device are one key on one phone.

const refused = (detail: string) => fieldError('BAD_REQUEST', 'DPoP', detail);

/**
 * The thumbprint a login binds its session to, or undefined for an unbound session. Refused (400
 * code 1 naming DPoP) without a proof where the company requires one, and when `deviceKeySpki` (a
 * device_public_key sent, or a PIN login's device, base64 SPKI) is not the proof's key.
 */
export async function loginSessionKey(
  call: RequestProof & { company: Pick<Company, 'require_dpop'> },
  deviceKeySpki?: string,
): Promise<string | undefined> {
  const jkt = call.dpop?.jkt;
  if (!jkt) {
    if (call.company.require_dpop) throw refused('this company requires a DPoP proof with every login');
    return undefined;
  }
  if (deviceKeySpki !== undefined && (await thumbprintOfSpki(deviceKeySpki)) !== jkt) {
    throw refused('the DPoP proof must be signed by the device’s own key');
  }
  return jkt;
}
