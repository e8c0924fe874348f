import { createTokenVerifier } from '@wallet-auth/client';

// One verifier per container: it keeps the JWKS and the ended sessions in memory.
export const verifier = createTokenVerifier({
  issuer: process.env.WALLET_AUTH_ISSUER ?? 'https://auth.example.com',
  audience: 'wallet',
  companyId: process.env.WALLET_COMPANY_ID,
});

/** The handler of an EventBridge rule on `session.ended`: the verifier refuses the session from now on. */
export async function onSessionEnded(event: { detail: { company_id: string; sid: string } }) {
  verifier.sessionEnded(event);
}

/** In a request handler: who calls, from `Authorization: Bearer <token>` (or `Token <token>`). */
export async function caller(authorization: string | undefined) {
  const token = authorization?.replace(/^(Bearer|Token) /, '') ?? '';
  const { userId, companyId, sessionId } = await verifier.verify(token);
  return { userId, companyId, sessionId };
}
