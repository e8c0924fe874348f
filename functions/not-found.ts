import middy from '@middy/core';
import { AppError } from '../lib/errors.js';
import { guardedHandler, type LambdaHttpHandler } from '../lib/http/api-handler.js';
import { envelope } from '../lib/http/middleware.js';

// Every route API Gateway does not know lands here, so it too answers in the envelope.
export const handler = guardedHandler(
  middy()
    .use(envelope)
    .handler(async () => {
      throw new AppError('NOT_FOUND', { detail: 'no such route' });
    }) as unknown as LambdaHttpHandler,
);
