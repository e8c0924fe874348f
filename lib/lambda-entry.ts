import { createApp } from './app.js';
import type { App } from './app-context.js';
import { readConfig } from './config.js';
import type { LambdaHttpHandler } from './http/api-handler.js';
import { failureBody } from './http/envelope.js';
import { answerFailure, failureOf, serviceUnavailable } from './http/failures.js';
import type { InvokedHandler } from './invoke/invoked-handler.js';
import { allAgain, type QueueHandler } from './invoke/queue-handler.js';
import { allRecordsAgain, type StreamHandler } from './invoke/stream-handler.js';
import { createLogger } from './observability/logger.js';
import { createMetrics } from './observability/metrics.js';

// Where a Lambda function starts: its app built once per container from the configuration in its
// environment (lib/app.ts), then its handler. Each file in functions/ exports one of these. A
// configuration it cannot run with never crashes the container at init (API Gateway would answer
// that outside the envelope): the function answers as its kind must, and the log says why.

/**
 * A function's handler built from its app; when the configuration cannot be run with, the log
 * says why and `cannotStart` gives the handler that answers in its kind's way instead.
 */
function started<Handler>(
  build: (app: App) => Handler,
  cannotStart: (reason: Error, parts: Pick<App, 'logger' | 'metrics'>) => Handler,
): Handler {
  try {
    return build(createApp(readConfig()));
  } catch (error) {
    const logger = createLogger('INFO');
    logger.error('function cannot start', { error: error as Error });
    return cannotStart(error as Error, { logger, metrics: createMetrics(logger) });
  }
}

/** An HTTP function: every call answers 503, code 16, when it cannot start. */
export function lambdaFunction(build: (app: App) => LambdaHttpHandler): LambdaHttpHandler {
  return started<LambdaHttpHandler>(build, (reason, parts) => async (event, context) => {
    parts.logger.addContext(context);
    return answerFailure(parts, serviceUnavailable(`function cannot start: ${reason.message}`), event);
  });
}

/** A function invoked through the Lambda API: every call answers 503 (code 16) in the envelope when it cannot start. */
export function invokedFunction<Data>(build: (app: App) => InvokedHandler<Data>): InvokedHandler<Data> {
  return started<InvokedHandler<Data>>(build, (_reason, parts) => async (_payload, context) => {
    parts.logger.addContext(context);
    return failureBody(failureOf(parts, serviceUnavailable('function cannot start'), undefined));
  });
}

/** A function an SQS queue invokes: every batch goes back when it cannot start. */
export function queueFunction(build: (app: App) => QueueHandler): QueueHandler {
  return started<QueueHandler>(build, () => async (event) => allAgain(event));
}

/** A function the table's stream invokes: every batch comes again when it cannot start. */
export function streamFunction(build: (app: App) => StreamHandler): StreamHandler {
  return started<StreamHandler>(build, () => async (event) => allRecordsAgain(event));
}

/** A function an EventBridge schedule invokes: every run fails (the function's Errors alarm) when it cannot start. */
export function scheduledFunction<Handler extends (...args: never[]) => Promise<unknown>>(build: (app: App) => Handler): Handler {
  return started<Handler>(
    build,
    (reason) =>
      (async () => {
        throw new Error(`function cannot start: ${reason.message}`);
      }) as unknown as Handler,
  );
}
