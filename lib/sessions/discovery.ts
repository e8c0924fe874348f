import type { App } from '../app-context.js';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../config.js';

// What a verifier of access tokens reads (API contract 3.12): the discovery document at
// <issuer>/.well-known/openid-configuration, as API Gateway's JWT authorizer and any OIDC-aware
// JOSE library look it up, and the JWKS it points to. Neither needs a CompanyID: keys are the
// service's, and `cid` in each token names its company.

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/.well-known/jwks.json';

/** The discovery document: the issuer, where its keys are, and the algorithms they sign with (publishedAlgorithms). */
export function openidConfiguration({ config }: Pick<App, 'config'>, algorithms: readonly SigningAlgorithm[]) {
  return {
    issuer: config.tokenIssuer,
    jwks_uri: `${config.tokenIssuer}${JWKS_PATH}`,
    // This service signs access tokens only; it issues no ID tokens and runs no OAuth authorization endpoint.
    response_types_supported: ['token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: algorithms,
    claims_supported: ['iss', 'aud', 'sub', 'cid', 'sid', 'utp', 'amr', 'iat', 'exp'],
  };
}

/** The algorithms of the keys the JWKS lists: both while a stage moves from one to the other (contract 3.12, amended). */
export async function publishedAlgorithms({ signingKeys }: Pick<App, 'signingKeys'>): Promise<SigningAlgorithm[]> {
  const published = await signingKeys.published();
  return SIGNING_ALGORITHMS.filter((alg) => published.some((key) => key.alg === alg));
}

/** The JWKS: every public key a token not yet expired may be signed with (lib/secrets/signing-keys.ts). */
export async function jwks({ signingKeys }: Pick<App, 'signingKeys'>) {
  return { keys: await signingKeys.published() };
}
