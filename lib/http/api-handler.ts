import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { Company } from '../companies/companies.js';
import { logger } from '../logger.js';
import { parseInput } from '../validation.js';
import type { Principal } from '../tokens/access-tokens.js';
import { internalErrorResponse } from './envelope.js';
import {
  activeCompany,
  authorization,
  companyIdHeader,
  envelope,
  jsonBody,
  normalizeHeaders,
  type ApiEvent,
  type AuthRequirement,
} from './middleware.js';

/** What a handler receives: validated input and who is calling for which company. */
export interface ApiCall<Body, Query, Auth extends AuthRequirement> {
  body: Body;
  query: Query;
  company: Company;
  /** Always present where the endpoint requires a token. */
  principal: Auth extends 'required' ? Principal : Principal | undefined;
}

export interface EndpointSpec<BodySchema extends z.core.$ZodType, QuerySchema extends z.core.$ZodType, Auth extends AuthRequirement> {
  auth: Auth;
  body?: BodySchema;
  query?: QuerySchema;
}

export type LambdaHttpHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * Builds an endpoint: the shared middy chain around a handler that takes validated input and
 * returns the success data. Handlers throw AppError for refusals and never build a response.
 */
export function apiHandler<
  Auth extends AuthRequirement,
  BodySchema extends z.core.$ZodType = z.core.$ZodType,
  QuerySchema extends z.core.$ZodType = z.core.$ZodType,
>(
  spec: EndpointSpec<BodySchema, QuerySchema, Auth>,
  handle: (call: ApiCall<z.output<BodySchema>, z.output<QuerySchema>, Auth>) => Promise<unknown>,
): LambdaHttpHandler {
  const chain = middy<ApiEvent, APIGatewayProxyStructuredResultV2, Error, Context>()
    .use(envelope)
    .use(normalizeHeaders)
    .use(companyIdHeader)
    .use(jsonBody)
    .use(activeCompany)
    .use(authorization(spec.auth))
    .handler(async (event) => {
      const body = (spec.body ? parseInput(spec.body, event.jsonBody) : {}) as z.output<BodySchema>;
      const query = (spec.query ? parseInput(spec.query, event.queryStringParameters ?? {}) : {}) as z.output<QuerySchema>;
      const principal = event.principal as ApiCall<unknown, unknown, Auth>['principal'];
      const data = await handle({ body, query, company: event.company, principal });
      return data as APIGatewayProxyStructuredResultV2;
    });
  return guardedHandler(chain as unknown as LambdaHttpHandler);
}

/** The last line of defence: nothing escapes as anything but the envelope. */
export function guardedHandler(inner: LambdaHttpHandler): LambdaHttpHandler {
  return async (event, context) => {
    try {
      return await inner(event, context);
    } catch (error) {
      logger.error('unhandled error outside the middleware chain', { error: error as Error });
      return internalErrorResponse();
    }
  };
}
