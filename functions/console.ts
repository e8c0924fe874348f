import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { script, scriptTag, style, styleTag } from 'console-page';
import { AppError } from '../lib/errors.js';
import { failureResponse } from '../lib/http/envelope.js';

// GET /console (API contract 3.14): the page a company's staff sign in on, find a user, act and
// keep the company's settings, calling the API of this same origin through the client library.
// Its script and style are built from console/src into this function's bundle
// (serverless/console-page.cjs). Fixed answers, as notFound's: no App, no AWS client, no permission.

/** Only this origin's own files run, nothing inline, nothing framed: a stored script in a user's name cannot run here. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  // Chromium refuses any HTML written as text (innerHTML and the like), should one ever slip in.
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Wallet console</title>
  <link rel="stylesheet" href="/console/console.css">
  <script src="/console/console.js" defer></script>
</head>
<body>
  <main id="console"><noscript>The console needs JavaScript.</noscript></main>
</body>
</html>
`;

/** The page's files, by the last part of their path. */
const ASSETS: Record<string, { contentType: string; body: string; etag: string }> = {
  'console.js': { contentType: 'text/javascript; charset=utf-8', body: script, etag: scriptTag },
  'console.css': { contentType: 'text/css; charset=utf-8', body: style, etag: styleTag },
};

export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  // API Gateway's path includes a named stage, if any; the route is its end.
  const path = event.rawPath.replace(/\/+$/, '');
  if (path.endsWith('/console')) {
    return {
      statusCode: 200,
      headers: { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
      body: PAGE,
    };
  }
  const asset = ASSETS[path.slice(path.lastIndexOf('/') + 1)];
  if (!path.includes('/console/') || !asset) {
    const missing = failureResponse(new AppError('NOT_FOUND', { detail: 'no such file' }));
    return { ...missing, headers: { ...missing.headers, ...SECURITY_HEADERS } };
  }
  // Revalidated each time (the bundle changes with each deploy); unchanged, a 304 without the body.
  const headers = { ...SECURITY_HEADERS, 'content-type': asset.contentType, 'cache-control': 'no-cache', etag: asset.etag };
  if (event.headers?.['if-none-match'] === asset.etag) return { statusCode: 304, headers, body: '' };
  return { statusCode: 200, headers, body: asset.body };
};
