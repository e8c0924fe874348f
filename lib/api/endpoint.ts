import type * as z from 'zod/mini';
import type { ErrorName } from '../errors.js';
import type { AuthRequirement } from '../http/middleware.js';

// What the API promises for one operation. Handlers take their auth and schemas from it; the
// OpenAPI document, the deploy test and the conformance tests read the same definitions.

export interface Endpoint {
  operationId: string;
  method: 'GET' | 'POST';
  path: string;
  summary: string;
  description: string;
  auth: AuthRequirement;
  body?: z.core.$ZodType;
  query?: z.core.$ZodType;
  /** The data of the success envelope. */
  result: z.core.$ZodType;
  /** Refusals this operation can give beyond those every operation can. */
  errors: ErrorName[];
  examples: { request?: unknown; result: unknown };
}

export const sampleToken = { type: 'Token', token: 'kT3oV2nq8N0x9C1bY4rS7uW6zA5dE2fG1hJ0kL9mP8Q' } as const;
export const sampleUserId = '5f1c7a2b9d3e4f60718293a4b5c6d7e8';
