import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { App } from '../lib/app.js';
import { AppError } from '../lib/errors.js';
import { guardedHandler, type LambdaHttpHandler } from '../lib/http/api-handler.js';
import { failureResponse } from '../lib/http/envelope.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { JWKS_MAX_AGE_SECONDS } from '../lib/secrets/signing-keys.js';
import { JWKS_PATH, jwks, OPENID_CONFIGURATION_PATH, openidConfiguration, publishedAlgorithms } from '../lib/sessions/discovery.js';

// GET /.well-known/openid-configuration and GET /.well-known/jwks.json (API contract 3.12): no
// CompanyID, no token. Verifiers may cache both for JWKS_MAX_AGE_SECONDS; a rotated-in key is
// published longer than that before it signs (lib/secrets/signing-keys.ts).

function answer(document: unknown): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json', 'cache-control': `public, max-age=${JWKS_MAX_AGE_SECONDS}` },
    body: JSON.stringify(document),
  };
}

export const wellKnownHandler = (app: App): LambdaHttpHandler =>
  guardedHandler(app, async (event: APIGatewayProxyEventV2) => {
    // API Gateway's path includes a named stage, if any; the route is its end.
    const path = event.rawPath.replace(/\/+$/, '');
    if (path.endsWith(OPENID_CONFIGURATION_PATH)) return answer(openidConfiguration(app, await publishedAlgorithms(app)));
    if (path.endsWith(JWKS_PATH)) return answer(await jwks(app));
    return failureResponse(new AppError('NOT_FOUND', { detail: 'no such document' }));
  });

export const handler = lambdaFunction(wellKnownHandler);
