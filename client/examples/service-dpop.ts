import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createTokenVerifier, WalletAuthError, wwwAuthenticate } from '@wallet-auth/client';

// Another service of the wallet (node:http; Express or Fastify hand their handlers the same
// request) that takes tokens bound to the phone's key: verifyRequest checks the token and its
// DPoP proof for this very request. Behind API Gateway's JWT authorizer alone, a bound token would
// be a bearer token: the authorizer ignores cnf.
export function paymentsService(issuer: string, companyId: string, publicBaseUrl: string): Server {
  const verifier = createTokenVerifier({ issuer, audience: 'wallet', companyId });
  return createServer(async (request: IncomingMessage, response) => {
    try {
      // The URL the client called, as it called it: this service's public base and the path.
      const url = new URL(request.url ?? '/', publicBaseUrl).toString();
      const caller = await verifier.verifyRequest({ method: request.method ?? 'GET', url, headers: request.headers });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ user_id: caller.userId, bound: caller.jkt !== undefined }));
    } catch (error) {
      if (!(error instanceof WalletAuthError)) throw error;
      response.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': wwwAuthenticate });
      response.end(JSON.stringify({ error: 'unauthorized' }));
    }
  });
}
