import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type AppError, type FailureDetails, type FieldError, StatusNames } from '../errors.js';

// The response envelope of every answer, success or failure (API contract, section 1).

export interface SuccessEnvelope<Data> {
  success: 1;
  error: [];
  data: Data;
}

export interface FailureEnvelope {
  success: 0;
  error: number[];
  data: { message: string; errors?: FieldError[] } & FailureDetails;
}

// Answers may carry tokens and are specific to one caller: no cache may keep them.
const BASE_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };

export function successBody<Data>(data: Data): SuccessEnvelope<Data> {
  return { success: 1, error: [], data };
}

export function successResponse<Data>(data: Data): APIGatewayProxyStructuredResultV2 {
  return { statusCode: 200, headers: { ...BASE_HEADERS }, body: JSON.stringify(successBody(data)) };
}

export function failureBody(error: AppError): FailureEnvelope {
  return {
    success: 0,
    error: [error.code],
    data: {
      message: StatusNames[error.status] ?? 'INTERNAL_SERVER_ERROR',
      ...(error.fields ? { errors: error.fields } : {}),
      ...error.data,
    },
  };
}

export function failureResponse(error: AppError): APIGatewayProxyStructuredResultV2 {
  return { statusCode: error.status, headers: { ...BASE_HEADERS, ...error.headers }, body: JSON.stringify(failureBody(error)) };
}
