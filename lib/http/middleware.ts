import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { COMPANY_ID_PATTERN, requireActiveCompany, type Company } from '../companies/companies.js';
import { config } from '../config.js';
import { AppError } from '../errors.js';
import { logger } from '../logger.js';
import { authenticate, type Principal } from '../tokens/access-tokens.js';
import { failureResponse, internalErrorResponse, successResponse } from './envelope.js';

// The middy middlewares every endpoint shares, in the order they run.

/** The event as the chain leaves it for the handler. */
export interface ApiEvent extends APIGatewayProxyEventV2 {
  company: Company;
  principal: Principal | undefined;
  jsonBody: Record<string, unknown>;
}

type ApiMiddleware = middy.MiddlewareObj<ApiEvent, APIGatewayProxyStructuredResultV2, Error, Context>;

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

/**
 * Owns the envelope: wraps what a handler returns, and turns every error into a failure
 * answer. An AppError answers with its own code; anything else is logged and answered as a
 * bare 500.
 */
export const envelope: ApiMiddleware = {
  after: (request) => {
    request.response = successResponse(request.response);
  },
  onError: (request) => {
    const { error } = request;
    if (error instanceof AppError) {
      logger.info('request refused', { route: request.event.routeKey, code: error.code, reason: error.message });
      request.response = failureResponse(error);
    } else {
      logger.error('request failed', { route: request.event.routeKey, error: error as Error });
      request.response = internalErrorResponse();
    }
  },
};

/** CompanyID must be 32 hex characters; it is kept lower-case from here on. */
export const companyIdHeader: ApiMiddleware = {
  before: (request) => {
    const companyId = request.event.headers.companyid?.trim();
    if (!companyId || !COMPANY_ID_PATTERN.test(companyId)) {
      throw new AppError('COMPANY_ID_INVALID', { detail: 'CompanyID must be 32 hexadecimal characters' });
    }
    request.event.headers.companyid = companyId.toLowerCase();
  },
};

const JSON_CONTENT_TYPE = /^application\/([a-z.+-]*\+)?json\s*(;|$)/i;

/** Parses a JSON object body of at most config.maxBodyBytes; no body reads as {}. */
export const jsonBody: ApiMiddleware = {
  before: (request) => {
    const { event } = request;
    const raw = event.body ?? '';
    const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
    if (Buffer.byteLength(text, 'utf8') > config.maxBodyBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', { detail: `body is over ${config.maxBodyBytes} bytes` });
    }
    if (text.trim() === '') {
      event.jsonBody = {};
      return;
    }
    const contentType = event.headers['content-type'];
    if (contentType !== undefined && !JSON_CONTENT_TYPE.test(contentType)) {
      throw new AppError('BAD_REQUEST', {
        detail: 'unsupported content type',
        fields: [{ code: 1, field: 'content-type', detail: 'must be application/json' }],
      });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new AppError('BAD_REQUEST', { detail: 'malformed JSON', fields: [{ code: 1, field: 'body', detail: 'is not valid JSON' }] });
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new AppError('BAD_REQUEST', { detail: 'body is not an object', fields: [{ code: 1, field: 'body', detail: 'must be a JSON object' }] });
    }
    event.jsonBody = parsed as Record<string, unknown>;
  },
};

/** The company named by CompanyID must exist and be active. */
export const activeCompany: ApiMiddleware = {
  before: async (request) => {
    request.event.company = await requireActiveCompany(request.event.headers.companyid!);
  },
};

export type AuthRequirement = 'required' | 'optional' | 'none';

/**
 * Resolves Authorization into a principal of this company. "optional" still refuses a bad
 * token: a client that sends one expects it to count.
 */
export function authorization(requirement: AuthRequirement): ApiMiddleware {
  return {
    before: async (request) => {
      const header = request.event.headers.authorization;
      request.event.principal =
        requirement === 'none' || (requirement === 'optional' && !header)
          ? undefined
          : await authenticate(request.event.company.company_id, header);
    },
  };
}
