import type { App } from '../app-context.js';
import { AppError, type ErrorName } from '../errors.js';
import { HEX_ID_PATTERN } from '../ids.js';
import { authenticate, SessionOver } from '../sessions/access-tokens.js';
import { dpopChallenge } from '../sessions/dpop-proofs.js';
import type { ApiMiddleware } from './api-event.js';
import type { Endpoint } from './endpoint.js';
import { answerFailure } from './failures.js';

// The middy middlewares every endpoint shares, in the order they run. Each is made from the
// parts of the app it needs.

/**
 * What the chain itself can refuse, before or around any handler, for an endpoint with this token
 * requirement and method: the refusals of the middlewares below and of the validation of its input, and the
 * 500 and 503 of failures.ts. The API document lists them for every operation.
 */
export function chainErrors({ method }: Pick<Endpoint, 'auth' | 'method'>): ErrorName[] {
  return [
    'BAD_REQUEST', // jsonBody, and parseInput (lib/validation.ts) on the endpoint's schemas
    'COMPANY_ID_INVALID', // companyIdHeader
    'COMPANY_NOT_FOUND', // activeCompany
    'PAYLOAD_TOO_LARGE', // jsonBody
    'INTERNAL_ERROR', // answerFailure: anything unforeseen
    'SERVICE_UNAVAILABLE', // answerFailure: a dependency down; the deadline (api-handler.ts)
    // authorization: a token that is sent must be valid, and so must a DPoP proof (dpop.ts), so any endpoint can answer 401.
    'UNAUTHORIZED',
    // idempotency.ts: every POST takes an Idempotency-Key, refused when reused for another request.
    ...(method === 'POST' ? (['IDEMPOTENCY_KEY_REUSED'] as const) : []),
  ];
}

/** API Gateway lowercases header names, other callers may not: the chain reads lowercase only. */
export const normalizeHeaders: ApiMiddleware = {
  before: (request) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.event.headers ?? {})) {
      if (value !== undefined) headers[name.toLowerCase()] = value;
    }
    request.event.headers = headers;
  },
};

/** Answers every error in the envelope (lib/http/failures.ts); apiHandler wraps successes. */
export function envelope(app: Pick<App, 'logger' | 'metrics'>): ApiMiddleware {
  return {
    onError: (request) => {
      request.response = answerFailure(app, request.error, request.event);
    },
  };
}

/** Writes the request's metrics as one EMF log line (with its request id) when it ends, if it counted any. */
export function flushMetrics({ metrics }: Pick<App, 'metrics'>): ApiMiddleware {
  const flush = () => metrics.publish();
  return {
    before: (request) => metrics.startRequest(request.context.awsRequestId),
    after: flush,
    onError: flush,
  };
}

/** CompanyID must be 32 hex characters; it is kept lower-case from here on. */
export const companyIdHeader: ApiMiddleware = {
  before: (request) => {
    const companyId = request.event.headers.companyid?.trim();
    if (!companyId || !HEX_ID_PATTERN.test(companyId)) {
      throw new AppError('COMPANY_ID_INVALID', { detail: 'CompanyID must be 32 hexadecimal characters' });
    }
    request.event.headers.companyid = companyId.toLowerCase();
  },
};

const JSON_CONTENT_TYPE = /^application\/([a-z.+-]*\+)?json\s*(;|$)/i;

function badBody(detail: string, field: string, fieldDetail: string): AppError {
  return new AppError('BAD_REQUEST', { detail, fields: [{ code: 1, field, detail: fieldDetail }] });
}

/** Parses a JSON object body of at most maxBodyBytes; no body reads as {}. */
export function jsonBody({ config }: Pick<App, 'config'>): ApiMiddleware {
  const { maxBodyBytes } = config;
  return {
    before: (request) => {
      const { event } = request;
      const raw = event.body ?? '';
      const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
      if (Buffer.byteLength(text, 'utf8') > maxBodyBytes) {
        throw new AppError('PAYLOAD_TOO_LARGE', { detail: `body is over ${maxBodyBytes} bytes` });
      }
      if (text.trim() === '') {
        event.jsonBody = {};
        return;
      }
      const contentType = event.headers['content-type'];
      if (contentType !== undefined && !JSON_CONTENT_TYPE.test(contentType)) {
        throw badBody('unsupported content type', 'content-type', 'must be application/json');
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw badBody('malformed JSON', 'body', 'is not valid JSON');
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        throw badBody('body is not an object', 'body', 'must be a JSON object');
      }
      event.jsonBody = parsed as Record<string, unknown>;
    },
  };
}

/** The company named by CompanyID must exist and be active. */
export function activeCompany({ companies, logger }: Pick<App, 'companies' | 'logger'>): ApiMiddleware {
  return {
    before: async (request) => {
      const companyId = request.event.headers.companyid ?? '';
      logger.appendKeys({ company_id: companyId });
      request.event.company = await companies.require(companyId);
    },
  };
}

/** Resolves Authorization into a principal of this company, as the endpoint requires. */
export function authorization(
  app: Pick<App, 'table' | 'clock' | 'config' | 'logger' | 'signingKeys'>,
  { auth: requirement, endsOwnSession }: Pick<Endpoint, 'auth' | 'endsOwnSession'>,
): ApiMiddleware {
  return {
    before: async (request) => {
      const { event } = request;
      const header = event.headers.authorization;
      if (requirement === 'none' || (requirement === 'optional' && !header) || !event.company) return;
      try {
        event.principal = await authenticate(app, event.company.company_id, header, event.dpop);
      } catch (error) {
        // A caller that speaks DPoP is told how to authenticate on every refusal (RFC 9449 section 7.1).
        const speaksDpop = event.dpop !== undefined || /^dpop\s/i.test(header ?? '');
        const refusal: Error =
          speaksDpop && error instanceof AppError && !error.headers?.['www-authenticate'] ? withDpopChallenge(error) : (error as Error);
        // Perhaps the retry of a request that ended this very session: the key's record decides (idempotency.ts).
        if (!endsOwnSession || !(error instanceof SessionOver) || event.headers['idempotency-key'] === undefined) throw refusal;
        event.endedSession = { sessionId: error.sessionId, refusal };
        return;
      }
      app.logger.appendKeys({ user_id: event.principal.userId });
    },
  };
}

/** The same refusal, with the DPoP challenge (RFC 9449 section 7.1). */
function withDpopChallenge(error: AppError): AppError {
  return new AppError(error.errorName, {
    detail: error.message,
    headers: { ...error.headers, 'www-authenticate': dpopChallenge('invalid_token', 'the token is not valid') },
    cause: error,
  });
}
