import { redeemAuthorizationPayload, redeemAuthorizationResult } from '../authorizations/redeem-authorization-payload.js';
import type { Config } from '../config.js';
import type { ErrorName } from '../errors.js';
import { duration } from '../http/endpoint.js';
import { failureEnvelope, fieldErrorSchema, jsonSchema, successEnvelope } from './openapi-document.js';

// The JSON Schema of redeemAuthorization, the function the payment service invokes through the
// Lambda API (no HTTP route, so not in the OpenAPI document): its payload and its answer, from the
// same zod schemas the function validates with. `npm run openapi` writes it to
// docs/redeem-authorization.schema.json.

/** What the answer's error array can hold: a malformed payload, an authorization refused, a dependency down, a fault. */
const REDEEM_ERRORS: ErrorName[] = ['BAD_REQUEST', 'AUTHORIZATION_INVALID', 'SERVICE_UNAVAILABLE', 'INTERNAL_ERROR'];

export function redeemAuthorizationSchema(config: Config): Record<string, unknown> {
  const payload = jsonSchema(redeemAuthorizationPayload, 'input');
  const result = jsonSchema(redeemAuthorizationResult, 'output');
  // A document of its own: the field error the API document keeps in its components lives in $defs here.
  const failure = JSON.parse(
    JSON.stringify(failureEnvelope(0, REDEEM_ERRORS)).replaceAll('#/components/schemas/FieldError', '#/$defs/FieldError'),
  );
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://wallet-auth.example/redeem-authorization.schema.json',
    title: 'redeemAuthorization',
    description:
      'Invoked through the Lambda API by the payment service (function wallet-auth-<stage>-redeemAuthorization), ' +
      'never over HTTP. Redeems a transaction authorization once, within ' +
      `${duration(config.authorizationTtlSeconds)} of its approval, only when company_id, amount (compared as a ` +
      'decimal), currency, payee and reference all equal what the user approved. Anything else answers code 19 ' +
      'AUTHORIZATION_INVALID without saying which value differed; a malformed payload code 1; a dependency that ' +
      'is down code 16. The answer is always this envelope, never a Lambda function error.',
    type: 'object',
    properties: {
      payload: { ...payload, description: 'The invocation payload (JSON)' },
      answer: {
        description: 'The function’s result: the envelope of every answer of this service',
        oneOf: [successEnvelope(result), failure],
      },
    },
    $defs: { FieldError: fieldErrorSchema },
  };
}
