import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { App } from '../app-context.js';
import { AppError } from '../errors.js';
import { audit, type RequestOrigin } from '../observability/audit.js';
import { ServerSecretUnavailable } from '../secrets/server-keys.js';
import { RequestAbandoned } from '../store/table.js';
import { StillContended } from '../store/transactions.js';
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

/** Why a transaction cancelled for contention is cancelled: retrying later may pass. */
const CONTENTION_REASONS = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);

/**
 * An AWS SDK error that says the service behind it is down, slow or throttling, not that our
 * request was wrong; a transaction still cancelled for contention after lib/store/transactions.ts
 * spent its retries counts as one, and so do renewed items that other writers kept overtaking.
 */
function isDependencyUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof StillContended) return true;
  if (error instanceof TransactionCanceledException) {
    return (error.CancellationReasons ?? []).some((reason) => CONTENTION_REASONS.has(reason.Code ?? ''));
  }
  const sdkError = error as SdkError & { $fault?: string };
  return isThrottlingError(sdkError) || isTransientError(sdkError) || isServerError(sdkError) || sdkError.$fault === 'server';
}

/** Where a request came from, read from the event API Gateway built (the address never from a client's header). */
export function originOf(event: APIGatewayProxyEventV2 | undefined): RequestOrigin {
  const headers = Object.entries(event?.headers ?? {});
  // A failure may be answered before the chain has lower-cased the names.
  const header = (wanted: string) => headers.find(([name]) => name.toLowerCase() === wanted)?.[1];
  return {
    sourceIp: event?.requestContext?.http?.sourceIp ?? '',
    userAgent: header('user-agent'),
    acceptLanguage: header('accept-language'),
  };
}

/** The answer to an error, logged; a refusal that is a security event is recorded as one. */
export function answerFailure(
  app: Pick<App, 'logger' | 'metrics'>,
  error: unknown,
  event: APIGatewayProxyEventV2 | undefined,
): APIGatewayProxyStructuredResultV2 {
  return failureResponse(failureOf(app, error, event));
}

/**
 * What an error is answered as, logged: itself when it is a refusal, 503 (code 16) when a
 * dependency is down, 500 for anything else. Also the answer of a function invoked without HTTP.
 */
export function failureOf(
  { logger, metrics }: Pick<App, 'logger' | 'metrics'>,
  error: unknown,
  event: APIGatewayProxyEventV2 | undefined,
): AppError {
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
    return error;
  }
  if (error instanceof ServerSecretUnavailable) {
    logger.error('server secret unavailable', { route, reason: error.message });
    return serviceUnavailable('server secret unavailable');
  }
  if (error instanceof RequestAbandoned) {
    logger.warn('work stopped after the deadline', { route });
    return serviceUnavailable('out of time');
  }
  if (isDependencyUnavailable(error)) {
    logger.error('dependency unavailable', { route, error: error as Error });
    return serviceUnavailable('dependency unavailable');
  }
  logger.error('request failed', { route, error: error as Error });
  return new AppError('INTERNAL_ERROR');
}
