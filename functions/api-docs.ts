import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import openApiDocument from '../docs/openapi.json' with { type: 'json' };
import type { App } from '../lib/app.js';
import { AppError } from '../lib/errors.js';
import { guardedHandler } from '../lib/http/api-handler.js';
import { failureResponse } from '../lib/http/envelope.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// GET /docs: an interactive reference of docs/openapi.json (Swagger UI from its npm package,
// no CDN) whose "Try it out" calls reach this same server. Local stage only: see serverless.yml.

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Wallet auth and referral API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/docs-init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/docs/openapi.json',
  dom_id: '#swagger-ui',
  tryItOutEnabled: true,
  persistAuthorization: true,
  displayRequestDuration: true,
});
`;

/** The Swagger UI files the page loads, and their content types. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const swaggerUiDirectory = () => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

function answer(contentType: string, body: string, isBase64Encoded = false): APIGatewayProxyStructuredResultV2 {
  return { statusCode: 200, headers: { 'content-type': contentType, 'cache-control': 'no-cache' }, body, isBase64Encoded };
}

const apiDocsHandler = (app: App) =>
  guardedHandler(app, async (event: APIGatewayProxyEventV2) => {
    const path = event.rawPath.replace(/\/+$/, '');
    if (path === '/docs') return answer('text/html; charset=utf-8', PAGE);
    if (path === '/docs/docs-init.js') return answer('text/javascript; charset=utf-8', INIT);
    if (path === '/docs/openapi.json') return answer('application/json', JSON.stringify(openApiDocument));
    const asset = path.slice('/docs/'.length);
    const contentType = ASSETS[asset];
    if (!contentType) return failureResponse(new AppError('NOT_FOUND', { detail: 'no such document' }));
    const content = await readFile(join(swaggerUiDirectory(), asset));
    return contentType.startsWith('image/')
      ? answer(contentType, content.toString('base64'), true)
      : answer(contentType, content.toString('utf8'));
  });

export const handler = lambdaFunction(apiDocsHandler);
