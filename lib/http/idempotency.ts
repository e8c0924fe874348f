import { createHash, randomUUID } from 'node:crypto';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { App } from '../app-context.js';
import { CREDENTIAL_REPLAY_SECONDS, IDEMPOTENCY_WINDOW_SECONDS } from '../call.js';
import { AppError, fieldError } from '../errors.js';
import { openAnswer, sealAnswer } from '../secrets/sealed-answers.js';
import {
  claimIdempotencyRecord,
  completeIdempotencyRecord,
  getIdempotencyRecord,
  type IdempotencyRecord,
  releaseIdempotencyRecord,
} from '../store/idempotency-store.js';
import { idempotencyRecordKey } from '../store/keys.js';
import type { ApiEvent, ApiMiddleware, IdempotentRequest } from './api-event.js';
import type { Endpoint } from './endpoint.js';
import { answerFailure } from './failures.js';

// Idempotency-Key on every POST (contract 3.10; draft-ietf-httpapi-idempotency-key-header). The
// first request with a key takes a record before it does anything; its answer is stored, sealed,
// when it has one; the same key with the same request gets that answer again, with another request
// 409 code 20, and while the first is at work 409 code 20 with Retry-After.
//
// Why not Powertools Idempotency (@aws-lambda-powertools/idempotency), whose shape this follows
// (DynamoDB record, in-progress state that expires with the Lambda's remaining time, payload
// validation by hash): it stores the handler's result as it is, and ours carry session tokens and
// phone proofs that must not sit in the table in plain text (it has no hook to seal them); its
// record is keyed by function name and hash alone (or one static partition), where ours must start
// with the company like every key (lib/store/keys.ts) and be scoped by the caller's token; it
// stores successes only and deletes the record on an error, where a refusal (409 already
// registered, 400 invalid code) is a first outcome to replay; and its in-progress and mismatch
// errors are thrown past the handler, where ours are answers in the envelope with Retry-After.

const HEADER = 'idempotency-key';
/** 1-255 visible ASCII characters. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function keyReused(detail: string, retryAfterSeconds?: number): AppError {
  return new AppError('IDEMPOTENCY_KEY_REUSED', {
    detail,
    ...(retryAfterSeconds ? { headers: { 'retry-after': String(retryAfterSeconds) } } : {}),
  });
}

/** A request's identity for its key: the route, the body as sent, and the key of its DPoP proof. */
function fingerprintOf(event: ApiEvent): string {
  const body = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? '');
  // A DPoP proof's key is part of the request (contract 3.17): a retry proven by another key, or by none, is another request.
  const key = event.dpop ? `\nDPoP ${event.dpop.jkt}` : '';
  return sha256(`${event.requestContext?.http?.method ?? 'POST'} ${event.rawPath ?? ''}\n${body}${key}`);
}

/** Answers kept for a replay: every outcome of the work, not a dependency's outage or a rate limit (the retry runs afresh). */
function isFinal(response: APIGatewayProxyStructuredResultV2): boolean {
  const status = response.statusCode ?? 500;
  return status < 500 && status !== 429;
}

type IdempotencyParts = Pick<App, 'table' | 'keys' | 'config' | 'clock' | 'logger' | 'metrics'>;

async function storeAnswer(app: IdempotencyParts, held: IdempotentRequest, response: APIGatewayProxyStructuredResultV2) {
  const { table, keys } = app;
  if (!isFinal(response)) {
    await releaseIdempotencyRecord(table, held.recordKey, held.owner);
    return;
  }
  const { version, key } = await keys.current('idempotency');
  const answer = JSON.stringify({ statusCode: response.statusCode, headers: response.headers, body: response.body });
  const sealed = sealAnswer(key, held.idempotencyKey, held.recordKey.pk, answer);
  await completeIdempotencyRecord(table, held.recordKey, held.owner, { sealed, keyVersion: version });
}

function notStored({ logger }: Pick<App, 'logger'>, error: unknown): void {
  logger.error('idempotent answer not stored', { error: error as Error });
}

/** The first request's answer again, marked as a replay. */
async function replay(
  app: IdempotencyParts,
  idempotencyKey: string,
  recordId: string,
  seen: IdempotencyRecord,
): Promise<APIGatewayProxyStructuredResultV2> {
  const key = await app.keys.atVersion('idempotency', seen.key_version ?? 0);
  const opened = key && seen.answer ? openAnswer(key, idempotencyKey, recordId, seen.answer) : undefined;
  // A secret version no longer kept cannot open it; running the request again could act twice.
  if (!opened) throw keyReused('the first answer to this key can no longer be given');
  const answer = JSON.parse(opened) as APIGatewayProxyStructuredResultV2;
  return { ...answer, headers: { ...answer.headers, 'idempotent-replayed': 'true' } };
}

/**
 * The record of a key: one per company, session and key (contract 3.10, amended in round 5). The
 * scope is the token's session (`sid`), not the token's spelling, which a refresh changes and a
 * signature can be re-spelled in; a request without a token shares the company's anonymous scope.
 */
function recordKeyOf(companyId: string, sessionId: string | undefined, idempotencyKey: string) {
  return idempotencyRecordKey(companyId, sha256(`${companyId}\n${sessionId ?? ''}\n${idempotencyKey}`));
}

/**
 * What the key's record answers a request that is not its first holder: 409 code 20 for another
 * request or while the first is at work, and for a credential once CREDENTIAL_REPLAY_SECONDS have
 * passed, whatever the retry's headers; otherwise the first answer again.
 */
async function answerFromRecord(
  app: IdempotencyParts,
  endpoint: Pick<Endpoint, 'answersCredential'>,
  idempotencyKey: string,
  recordId: string,
  seen: IdempotencyRecord,
  fingerprint: string,
  nowMs: number,
): Promise<APIGatewayProxyStructuredResultV2> {
  if (seen.fingerprint !== fingerprint) throw keyReused('this Idempotency-Key was used with another request');
  if (seen.state === 'in_progress') {
    throw keyReused(
      'the first request with this Idempotency-Key is still at work',
      Math.max(1, Math.ceil((seen.locked_until - nowMs) / 1000)),
    );
  }
  const firstAtSeconds = seen.expires_at - IDEMPOTENCY_WINDOW_SECONDS;
  if (endpoint.answersCredential && nowMs / 1000 - firstAtSeconds > CREDENTIAL_REPLAY_SECONDS) {
    throw keyReused('the answer to this Idempotency-Key carried a credential and is no longer given: send a new request with a new key');
  }
  return replay(app, idempotencyKey, recordId, seen);
}

/**
 * The retry of a request whose own work ended the session its token names (a logout, a deletion):
 * its first outcome, from the key's record in that session's scope; with no such record, the 401.
 */
async function answerForEndedSession(
  app: IdempotencyParts,
  endpoint: Pick<Endpoint, 'answersCredential'>,
  event: ApiEvent,
  ended: NonNullable<ApiEvent['endedSession']>,
): Promise<APIGatewayProxyStructuredResultV2> {
  const idempotencyKey = event.headers[HEADER];
  const companyId = event.company?.company_id;
  if (idempotencyKey === undefined || !companyId || !KEY_PATTERN.test(idempotencyKey)) throw ended.refusal;
  const recordKey = recordKeyOf(companyId, ended.sessionId, idempotencyKey);
  const nowMs = app.clock.now();
  const seen = await getIdempotencyRecord(app.table, recordKey);
  // Only a first request that was answered (or is still at work) speaks for the retry; nothing else outlives its session.
  if (!seen || seen.expires_at <= nowMs / 1000 || seen.state === 'released') throw ended.refusal;
  // A first request past its deadline with no answer kept (it died, or storing its answer failed) is
  // over, and with its session ended it never runs again: the 401, not "still at work" for a day.
  if (seen.state === 'in_progress' && seen.locked_until <= nowMs) throw ended.refusal;
  return answerFromRecord(app, endpoint, idempotencyKey, recordKey.pk, seen, fingerprintOf(event), nowMs);
}

/**
 * The Idempotency-Key middleware, after the company and the token are known (a request the chain
 * refuses before it does nothing to replay). Endpoints that are not POST do not use it.
 */
export function idempotency(app: IdempotencyParts, endpoint: Pick<Endpoint, 'method' | 'answersCredential'>): ApiMiddleware {
  const { table, config, clock } = app;
  const isPost = endpoint.method === 'POST';
  return {
    before: async (request) => {
      const { event } = request;
      if (event.endedSession) {
        if (!isPost) throw event.endedSession.refusal;
        return answerForEndedSession(app, endpoint, event, event.endedSession);
      }
      const idempotencyKey = event.headers[HEADER];
      if (!isPost || idempotencyKey === undefined || !event.company) return;
      if (!KEY_PATTERN.test(idempotencyKey)) {
        throw fieldError('BAD_REQUEST', 'Idempotency-Key', 'must be 1 to 255 visible ASCII characters');
      }
      const recordKey = recordKeyOf(event.company.company_id, event.principal?.sessionId, idempotencyKey);
      const owner = randomUUID();
      const nowMs = clock.now();
      // Held until this request is answered 503 for its deadline, plus the one write that may still be in flight then.
      const timeLeftMs = Number.isFinite(event.answerBy) ? (event.answerBy as number) - Date.now() : config.functionTimeoutMs;
      const fingerprint = fingerprintOf(event);
      const claim = await claimIdempotencyRecord(table, recordKey, {
        fingerprint,
        owner,
        lockedUntil: nowMs + timeLeftMs + config.dynamodbTimeoutMs,
        expiresAt: Math.floor(nowMs / 1000) + IDEMPOTENCY_WINDOW_SECONDS,
        nowMs,
      });
      if (claim.taken) {
        event.idempotency = { idempotencyKey, recordKey, owner, requestRef: sha256(`${recordKey.pk}\n${fingerprint}`) };
        return;
      }
      return answerFromRecord(app, endpoint, idempotencyKey, recordKey.pk, claim.seen, fingerprint, nowMs);
    },
    after: async (request) => {
      const held = request.event.idempotency;
      // The work is done: its answer is given even when it cannot be kept (a retry then finds the record in progress).
      if (held && request.response) await storeAnswer(app, held, request.response).catch((error: unknown) => notStored(app, error));
    },
    onError: async (request) => {
      const held = request.event.idempotency;
      if (!held) return undefined;
      // Answered here rather than by the envelope middleware, so the answer stored is the one given.
      const response = answerFailure(app, request.error, request.event);
      await storeAnswer(app, held, response).catch((error: unknown) => notStored(app, error));
      return response;
    },
  };
}
