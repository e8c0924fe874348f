import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Principal } from '../call.js';
import type { Company } from '../companies/companies.js';
import type { DpopProof } from '../sessions/dpop-proofs.js';
import type { idempotencyRecordKey } from '../store/keys.js';

// The request as the middy chain passes it along (lib/http/middleware.ts, idempotency.ts): the
// types the middlewares share, below all of them.

/** The event as the chain leaves it for the handler: what the middlewares found. */
export interface ApiEvent extends APIGatewayProxyEventV2 {
  company?: Company;
  principal?: Principal | undefined;
  jsonBody?: Record<string, unknown>;
  /** The request's DPoP proof, verified for it (lib/http/dpop.ts): the key a login or refresh binds its tokens to. */
  dpop?: DpopProof;
  /** When the request is answered 503 for running out of time (Date.now() milliseconds): set before the chain runs. */
  answerBy?: number;
  /** Set when the request holds its Idempotency-Key record: its answer is stored for a replay. */
  idempotency?: IdempotentRequest;
  /**
   * A token whose signature holds but whose session is over, sent with an Idempotency-Key: the
   * request may be the retry of one that ended its own session (a logout, a deletion), which the
   * key's record answers; without such a record the refusal stands (idempotency.ts).
   */
  endedSession?: { sessionId: string; refusal: Error };
}

export type ApiMiddleware = middy.MiddlewareObj<ApiEvent, APIGatewayProxyStructuredResultV2, Error, Context>;

/** What the chain keeps of a request that holds its idempotency record, for storing its answer. */
export interface IdempotentRequest {
  idempotencyKey: string;
  recordKey: ReturnType<typeof idempotencyRecordKey>;
  owner: string;
  /**
   * Names this request, its key and its body together: what it took (a try, a nonce, a code) is
   * its own on a retry, and never another body's, even once the key's record is gone.
   */
  requestRef: string;
}
