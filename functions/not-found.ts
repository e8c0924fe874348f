import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { AppError } from '../lib/errors.js';
import { failureResponse } from '../lib/http/envelope.js';

// Every route API Gateway does not know lands here, so it too answers in the envelope. The
// answer is fixed and cannot fail: no middleware chain, logger or SDK client to load, so a
// cold start costs no more than Node's own.
export const handler = async (): Promise<APIGatewayProxyStructuredResultV2> =>
  failureResponse(new AppError('NOT_FOUND', { detail: 'no such route' }));
