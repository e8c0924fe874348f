import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { App } from '../app.js';
import { AppError } from '../errors.js';
import { audit, type RequestOrigin } from '../observability/audit.js';
import { ServerSecretUnavailable } from '../secrets/server-keys.js';
import { failureResponse } from './envelope.js';

// What every failure is answered with, in one place: a refusal with its own code; a dependency
// that is down, slow or throttling with 503 (code 16) and Retry-After; anything else with a bare
// 500. Each is logged with what an operator needs, never with the request's secrets.

/** Seconds a client should wait before trying again after a 503. */
const RETRY_AFTER_UNAVAILABLE_SECONDS = 2;

export function serviceUnavailable(detail: string): AppError {
  return new AppError('SERVICE_UNAVAILABLE', { detail, headers: { 'retry-after': String(RETRY_AFTER_UNAVAILABLE_SECONDS) } });
}

type SdkError = Parameters<typeof isTransientError>[0];

/** An AWS SDK error that says the service behind it is down, slow or throttling, not that our request was wrong. */
function isDependencyUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const sdkError = error as SdkError & { $fault?: string };
  return isThrottlingError(sdkError) || isTransientError(sdkError) || isServerError(sdkError) || sdkError.$fault === 'server';
}

/** Where a request came from, read from the event API Gateway built (never from a client's header). */
export function originOf(event: APIGatewayProxyEventV2 | undefined): RequestOrigin {
  const headers = event?.headers ?? {};
  const userAgent = Object.entries(headers).find(([name]) => name.toLowerCase() === 'user-agent')?.[1];
  return { sourceIp: event?.requestContext?.http?.sourceIp ?? '', userAgent };
}

/** The answer to an error, logged; a refusal that is a security event is recorded as one. */
export function answerFailure(
  { logger, metrics }: Pick<App, 'logger' | 'metrics'>,
  error: unknown,
  event: APIGatewayProxyEventV2 | undefined,
): APIGatewayProxyStructuredResultV2 {
  const route = event?.routeKey;
  if (error instanceof AppError) {
    const log = error.status >= 500 ? logger.error.bind(logger) : logger.info.bind(logger);
    log('request refused', { route, code: error.code, reason: error.message });
    if (error.event) {
      audit({ logger, metrics }, originOf(event), error.event.event, {
        // The chain has checked and lower-cased it by the time anything is refused as an event.
        company_id: event?.headers?.companyid ?? '',
        phone_ref: error.event.phoneRef,
        outcome: 'refused',
        code: error.code,
        ...(error.event.limit ? { limit: error.event.limit } : {}),
      });
    }
    return failureResponse(error);
  }
  if (error instanceof ServerSecretUnavailable) {
    logger.error('server secret unavailable', { route, reason: error.message });
    return failureResponse(serviceUnavailable('server secret unavailable'));
  }
  if (isDependencyUnavailable(error)) {
    logger.error('dependency unavailable', { route, error: error as Error });
    return failureResponse(serviceUnavailable('dependency unavailable'));
  }
  logger.error('request failed', { route, error: error as Error });
  return failureResponse(new AppError('INTERNAL_ERROR'));
}
