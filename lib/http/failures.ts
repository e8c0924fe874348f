import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
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

/** The answer to an error, logged. */
export function answerFailure(logger: Logger, error: unknown, route: string | undefined): APIGatewayProxyStructuredResultV2 {
  if (error instanceof AppError) {
    const log = error.status >= 500 ? logger.error.bind(logger) : logger.info.bind(logger);
    log('request refused', { route, code: error.code, reason: error.message });
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
