import { randomInt } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

// API Gateway HTTP API (payload 2.0) events, as Lambda hands them to the handlers.

export interface EventInput {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  query?: Record<string, string>;
}

export function httpEvent(input: EventInput): APIGatewayProxyEventV2 {
  const method = input.method ?? 'POST';
  return {
    version: '2.0',
    routeKey: `${method} ${input.path}`,
    rawPath: input.path,
    rawQueryString: new URLSearchParams(input.query ?? {}).toString(),
    headers: { 'content-type': 'application/json', ...input.headers },
    queryStringParameters: input.query,
    body: input.body === undefined ? undefined : JSON.stringify(input.body),
    isBase64Encoded: false,
    requestContext: {
      accountId: 'bench',
      apiId: 'bench',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method, path: input.path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
      requestId: `bench-${randomInt(1e9)}`,
      routeKey: `${method} ${input.path}`,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
  };
}

export const lambdaContext = { getRemainingTimeInMillis: () => 10_000, awsRequestId: 'bench' } as unknown as Context;
