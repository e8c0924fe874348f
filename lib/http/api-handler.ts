import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { App } from '../app-context.js';
import type { Call, Principal, RequestKey, RequestProof, RequestTime } from '../call.js';
import type { RequestOrigin } from '../observability/audit.js';
import { requestWork } from '../store/table.js';
import { parseInput } from '../validation.js';
import type { ApiEvent } from './api-event.js';
import { dpopOnce, dpopProof } from './dpop.js';
import type { Endpoint, InputOf } from './endpoint.js';
import { failureResponse, successResponse } from './envelope.js';
import { answerFailure, originOf, serviceUnavailable } from './failures.js';
import { idempotency } from './idempotency.js';
import { activeCompany, authorization, companyIdHeader, envelope, flushMetrics, jsonBody, normalizeHeaders } from './middleware.js';

export type LambdaHttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

export type { RequestOrigin };

/** What a handler receives, the call of lib/call.ts typed by the endpoint: the principal is always there where it requires a token. */
export type ApiCall<E extends Endpoint> = Call<
  InputOf<E['body']>,
  InputOf<E['query']>,
  E['auth'] extends 'required' ? Principal : Principal | undefined
> &
  RequestTime &
  RequestKey &
  RequestProof;

type Handle<E extends Endpoint> = (call: ApiCall<E>) => Promise<z.output<E['result']>>;

async function parse<Schema extends z.core.$ZodType | undefined>(schema: Schema, input: Record<string, unknown>): Promise<InputOf<Schema>> {
  // An endpoint without a schema for a part takes nothing from it.
  return (schema ? await parseInput(schema, input) : {}) as InputOf<Schema>;
}

async function callOf<E extends Endpoint>(endpoint: E, event: ApiEvent): Promise<ApiCall<E>> {
  const { company, principal, jsonBody: body = {} } = event;
  if (!company) throw new Error('the chain left no company');
  if (endpoint.auth === 'required' && !principal) throw new Error('the chain left no principal');
  return {
    body: await parse<E['body']>(endpoint.body, body),
    query: await parse<E['query']>(endpoint.query, event.queryStringParameters ?? {}),
    company,
    principal: principal as ApiCall<E>['principal'],
    origin: originOf(event),
    idempotencyRef: event.idempotency?.requestRef,
    dpop: event.dpop,
    timeLeftMs: () => (event.answerBy ?? Number.POSITIVE_INFINITY) - Date.now(),
  };
}

/**
 * Builds an endpoint: the shared middy chain around a handler that takes validated input and
 * returns the success data, typed by the endpoint's result schema, which is answered in the
 * envelope. Handlers throw AppError for refusals and never build a response.
 */
export function apiHandler<E extends Endpoint>(app: App, endpoint: E, handle: Handle<E>): LambdaHttpHandler {
  const chain = middy<ApiEvent, APIGatewayProxyStructuredResultV2, Error, Context>({ timeoutEarlyInMillis: 0 })
    // Every line this request logs carries the Lambda context (request id, cold start, ...), and
    // the keys added while it runs (company_id, user_id) are dropped when it ends.
    .use(injectLambdaContext(app.logger, { resetKeys: true }))
    .use(flushMetrics(app))
    .use(envelope(app))
    .use(normalizeHeaders)
    .use(companyIdHeader)
    .use(jsonBody(app))
    .use(activeCompany(app))
    .use(dpopProof(app))
    .use(authorization(app, endpoint))
    .use(dpopOnce(app, endpoint))
    .use(idempotency(app, endpoint))
    .handler(async (event: ApiEvent) => successResponse(await handle(await callOf(endpoint, event))));
  return guardedHandler(app, withDeadline(app, chain));
}

/**
 * Milliseconds this request may still take: the function's own timeout counted from when API
 * Gateway received the request (serverless-offline starts its clock there too, before loading
 * the handler) or from what Lambda says is left, whichever ends first, less a margin.
 */
function timeLeftMs({ config }: Pick<App, 'config'>, event: APIGatewayProxyEventV2, context: Context): number {
  const fromContext =
    typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : Number.POSITIVE_INFINITY;
  const receivedAt = event.requestContext?.timeEpoch;
  const fromArrival = Number.isFinite(receivedAt) ? receivedAt + config.functionTimeoutMs - Date.now() : Number.POSITIVE_INFINITY;
  return Math.min(fromContext, fromArrival, config.functionTimeoutMs) - config.deadlineMarginMs;
}

/**
 * Answers 503 (code 16) in the envelope when a request is still at work as its time runs out,
 * before Lambda's own timeout would cut it off (API Gateway would answer a bare 503, and
 * serverless-offline an HTTP 200 with a stack trace). middy's timeoutEarly covers only the
 * handler, not the middlewares before it, which read DynamoDB too: this covers the whole chain.
 */
function withDeadline(app: Pick<App, 'config' | 'logger'>, inner: LambdaHttpHandler): LambdaHttpHandler {
  return async (event, context) => {
    let timer: NodeJS.Timeout | undefined;
    const timeLeft = Math.max(0, timeLeftMs(app, event, context));
    (event as ApiEvent).answerBy = Date.now() + timeLeft;
    const work = new AbortController();
    const outOfTime = new Promise<APIGatewayProxyStructuredResultV2>((resolve) => {
      timer = setTimeout(() => {
        app.logger.error('request ran out of time', { route: event.routeKey, timeout_ms: app.config.functionTimeoutMs });
        work.abort();
        resolve(failureResponse(serviceUnavailable('out of time')));
      }, timeLeft);
    });
    try {
      return await Promise.race([requestWork.run(work.signal, () => inner(event, context)), outOfTime]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The last line of defence: nothing escapes as anything but the envelope. */
export function guardedHandler(app: Pick<App, 'logger' | 'metrics'>, inner: LambdaHttpHandler): LambdaHttpHandler {
  return async (event, context) => {
    try {
      return await inner(event, context);
    } catch (error) {
      return answerFailure(app, error, event);
    }
  };
}
