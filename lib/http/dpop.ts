import { randomUUID } from 'node:crypto';
import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { DPOP_PROOF_MAX_BYTES, dpopRefused, expectedHtus, issueNonce, verifyProof } from '../sessions/dpop-proofs.js';
import { spendProofJti } from '../store/dpop-store.js';
import type { ApiMiddleware } from './api-event.js';
import type { Endpoint } from './endpoint.js';

// The DPoP proof of a request (contract 3.17), in two steps around `authorization`: dpopProof
// verifies the DPoP header before the token is read (authorization then requires it for a bound
// token, lib/sessions/access-tokens.ts), and dpopOnce spends the proof's jti once the caller is
// known: on the routes that answer tokens (answersCredential) and everywhere with nonces, by a
// conditional put in the table; elsewhere once per warm function, the window bounding the rest.

/** The jti seen by this warm function on routes that keep no record: key -> until when (epoch seconds). */
const seenHere = new Map<string, number>();
const SEEN_HERE_MAX = 20_000;

/** Whether this function has not seen the proof yet within its window; records it. */
function firstHere(key: string, now: number, until: number): boolean {
  const seen = seenHere.get(key);
  if (seen !== undefined && seen > now) return false;
  if (seenHere.size >= SEEN_HERE_MAX) {
    for (const [old, expires] of seenHere) if (expires <= now) seenHere.delete(old);
    // Still full of live proofs: the oldest go first; each is then still bound by its window.
    for (const old of seenHere.keys()) {
      if (seenHere.size < SEEN_HERE_MAX) break;
      seenHere.delete(old);
    }
  }
  seenHere.set(key, until);
  return true;
}

/** Verifies the DPoP header, if any: 413 past 8 KB, 401 code 4 (with the DPoP challenge) when it is not a valid proof for this request. */
export function dpopProof(app: Pick<App, 'keys' | 'clock' | 'config'>): ApiMiddleware {
  return {
    before: async (request) => {
      const { event } = request;
      const header = event.headers.dpop;
      if (header === undefined) return;
      if (Buffer.byteLength(header, 'utf8') > DPOP_PROOF_MAX_BYTES) {
        throw new AppError('PAYLOAD_TOO_LARGE', { detail: `the DPoP header is over ${DPOP_PROOF_MAX_BYTES} bytes` });
      }
      // Two DPoP headers arrive joined by a comma: RFC 9449 allows exactly one.
      if (header.includes(',')) throw dpopRefused('more than one DPoP header');
      const companyId = event.headers.companyid ?? '';
      const path = event.rawPath ?? '';
      const htus = expectedHtus(app.config, path, event.headers.host);
      event.dpop = await verifyProof(app, header.trim(), { companyId, method: event.requestContext?.http?.method ?? '', htus });
    },
  };
}

/**
 * Spends the proof's jti once its caller is known (a bound token's key checked), before the
 * Idempotency-Key's record: a retry with a new proof is answered the first outcome, a proof sent
 * again is refused. With nonces, every answer carries the next one.
 */
export function dpopOnce(
  app: Pick<App, 'table' | 'keys' | 'clock' | 'config'>,
  { answersCredential }: Pick<Endpoint, 'answersCredential'>,
): ApiMiddleware {
  const nonceHeader = async (request: Parameters<NonNullable<ApiMiddleware['after']>>[0]) => {
    const companyId = request.event.company?.company_id;
    if (!app.config.dpopNonce || !companyId || !request.response) return;
    request.response.headers = { ...request.response.headers, 'dpop-nonce': await issueNonce(app, companyId) };
  };
  return {
    before: async (request) => {
      const { event } = request;
      const proof = event.dpop;
      if (!proof || !event.company) return;
      const companyId = event.company.company_id;
      const now = epochSeconds(app.clock);
      const window = app.config.dpopProofMaxAgeSeconds;
      // A proof with a nonce lives as long as the nonce (two steps); without, its iat's window (and the skew allowed ahead).
      const until = proof.nonce ? now + 2 * window : Math.max(proof.iat, now) + window + 5;
      const once =
        answersCredential || app.config.dpopNonce
          ? await spendProofJti(app.table, companyId, proof, now, until, randomUUID())
          : firstHere(`${companyId}.${proof.jkt}.${proof.jti}`, now, until);
      if (!once) throw dpopRefused('the proof was used already');
    },
    after: nonceHeader,
  };
}
