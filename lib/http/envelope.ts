import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type AppError, type FieldError, StatusNames } from '../errors.js';

// The response envelope of every answer, success or failure (API contract, section 1).

export interface SuccessEnvelope<Data> {
  success: 1;
  error: [];
  data: Data;
}

export interface FailureEnvelope {
  success: 0;
  error: number[];
  data: { message: string; errors?: FieldError[] };
}

// Answers may carry tokens and are specific to one caller: no cache may keep them.
const BASE_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };

export function successResponse<Data>(data: Data): APIGatewayProxyStructuredResultV2 {
  const body: SuccessEnvelope<Data> = { success: 1, error: [], data };
  return { statusCode: 200, headers: { ...BASE_HEADERS }, body: JSON.stringify(body) };
}

export function failureResponse(error: AppError): APIGatewayProxyStructuredResultV2 {
  const body: FailureEnvelope = {
    success: 0,
    error: [error.code],
    data: { message: StatusNames[error.status] ?? 'INTERNAL_SERVER_ERROR', ...(error.fields ? { errors: error.fields } : {}) },
  };
  return { statusCode: error.status, headers: { ...BASE_HEADERS, ...error.headers }, body: JSON.stringify(body) };
}
