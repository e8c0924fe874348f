import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { AuthRequirement } from '../api/endpoint.js';
import type { App } from '../app.js';
import type { Company } from '../companies/companies.js';
import { AppError } from '../errors.js';
import { HEX_ID_PATTERN } from '../ids.js';
import { startRequestMetrics } from '../observability/metrics.js';
import { authenticate, type Principal } from '../sessions/access-tokens.js';
import { answerFailure } from './failures.js';

// The middy middlewares every endpoint shares, in the order they run. Each is made from the
// parts of the app it needs.

/** The event as the chain leaves it for the handler: what the middlewares found. */
export interface ApiEvent extends APIGatewayProxyEventV2 {
  company?: Company;
  principal?: Principal | undefined;
  jsonBody?: Record<string, unknown>;
}

export type ApiMiddleware = middy.MiddlewareObj<ApiEvent, APIGatewayProxyStructuredResultV2, Error, Context>;

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
  const flush = () => {
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  };
  return {
    before: (request) => startRequestMetrics(metrics, request.context.awsRequestId),
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
export function authorization(app: Pick<App, 'table' | 'clock' | 'config' | 'logger'>, requirement: AuthRequirement): ApiMiddleware {
  return {
    before: async (request) => {
      const { event } = request;
      const header = event.headers.authorization;
      event.principal =
        requirement === 'none' || (requirement === 'optional' && !header) || !event.company
          ? undefined
          : await authenticate(app, event.company.company_id, header);
      if (event.principal) app.logger.appendKeys({ user_id: event.principal.userId });
    },
  };
}
