import type { Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { App } from '../app-context.js';
import { AppError } from '../errors.js';
import { type FailureEnvelope, failureBody, type SuccessEnvelope, successBody } from '../http/envelope.js';
import { failureOf, serviceUnavailable } from '../http/failures.js';
import { parseInput } from '../validation.js';

// A function another service invokes through the Lambda API, with no HTTP route (API contract
// 3.8, redeemAuthorization): the payload is validated by a zod schema and the answer is always the
// envelope object, for a malformed payload, a dependency that is down or a deadline too; it never
// throws, since Lambda would answer that as a FunctionError outside the envelope.

export type Envelope<Data> = SuccessEnvelope<Data> | FailureEnvelope;

export type InvokedHandler<Data> = (payload: unknown, context: Context) => Promise<Envelope<Data>>;

/** The payload as an object to validate, or a refusal naming it. */
function payloadObject(payload: unknown): Record<string, unknown> {
  if (payload !== null && typeof payload === 'object' && !Array.isArray(payload)) return payload as Record<string, unknown>;
  throw new AppError('BAD_REQUEST', {
    detail: 'payload is not an object',
    fields: [{ code: 1, field: 'payload', detail: 'must be a JSON object' }],
  });
}

/**
 * An invoked function: validate, do, answer, with every failure answered as the envelope (the
 * same classification as the HTTP chain, lib/http/failures.ts), and 503 (code 16) when its time
 * runs out, deadlineMarginMs before Lambda would cut it off.
 */
export function invokedHandler<Schema extends z.core.$ZodType, Data>(
  app: App,
  schema: Schema,
  handle: (input: z.output<Schema>, context: Context) => Promise<Data>,
): InvokedHandler<Data> {
  return async (payload, context) => {
    app.logger.addContext(context);
    app.metrics.startRequest(context.awsRequestId);
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeLeft = Math.max(
        0,
        Math.min(context.getRemainingTimeInMillis(), app.config.functionTimeoutMs) - app.config.deadlineMarginMs,
      );
      const outOfTime = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(serviceUnavailable('out of time')), timeLeft);
      });
      const work = (async () => successBody(await handle(await parseInput(schema, payloadObject(payload)), context)))();
      return await Promise.race([work, outOfTime]);
    } catch (error) {
      return failureBody(failureOf(app, error, undefined));
    } finally {
      clearTimeout(timer);
      app.metrics.publish();
      app.logger.resetKeys();
    }
  };
}
