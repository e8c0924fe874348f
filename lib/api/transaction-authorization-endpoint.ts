import { transactionAuthorizationBody } from '../authorizations/transaction-authorization-input.js';
import { transactionAuthorizationResult } from '../authorizations/transaction-authorization-result.js';
import { duration, type Endpoint } from '../http/endpoint.js';
import {
  keepAnswers,
  PIN_DAILY,
  PIN_REHASH,
  PIN_TRIES,
  readCompanyAndSession,
  recordSessionUse,
  TRIES_READ_BACK,
  UNREAD,
} from './grant-parts.js';

export const transactionAuthorizationEndpoint = {
  operationId: 'transactionAuthorization',
  method: 'POST',
  path: '/wallet/v3/auth/transaction_authorization',
  summary: 'Approve one exact payment with the transaction PIN',
  tag: 'auth',
  description: (config) =>
    'The transaction PIN approves one payment: amount (a decimal string; "10.5" and "10.50" are one amount), ' +
    'currency, payee and the payment’s own reference. The answer’s authorization_token is for the payment ' +
    'service, which redeems it once through the Lambda API (redeemAuthorization, docs/redeem-authorization.schema.json) ' +
    `within ${duration(config.authorizationTtlSeconds)}, only for exactly these values. ` +
    `A wrong PIN is code 17 with attempts_left; after ${config.pinMaxFailures} in a row the transaction PIN is locked ` +
    '(code 18) until reset_pin with pin_type 2. A reference the user already has a live authorization for is ' +
    '400, code 1, on reference.',
  // A PIN checked against its scrypt hash is CPU-bound: 1,024 MB buys the CPU share its figures
  // in docs/performance.md were measured at.
  memorySize: 1024,
  auth: 'required',
  body: transactionAuthorizationBody,
  result: transactionAuthorizationResult,
  errors: ['PIN_INVALID', 'PIN_LOCKED', 'FORBIDDEN'],
  examples: {
    request: { transaction_pin: '1397', amount: '10.50', currency: 'EUR', payee: 'Acme Coffee', reference: 'order-2024-0001' },
    result: { authorization_token: 'Qm9vN3lDa2hYcnZ0TjVwS0ZqYlJ3Z1UyeEx6YTFkU2U', expires_in: 120 },
  },
  grants: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user'] },
      // The user's pending changes: an SMS-strength session approves nothing while one waits (contract 3.15).
      { actions: ['Query'], keys: ['pendingChange'] },
      // A try taken before the PIN is compared (and the PIN's hash made again); the unread count of a PIN-locked notice.
      {
        actions: ['UpdateItem'],
        keys: ['pinTries', 'unreadCount'],
        attributes: [...PIN_TRIES, ...UNREAD, ...PIN_REHASH.transaction, 'transaction_pin_to_set'],
        returns: TRIES_READ_BACK,
      },
      ...PIN_DAILY,
      { actions: ['PutItem'], keys: ['authorization', 'authorizationReference', 'notification'] },
      // A right PIN clears its tries (in the authorization's transaction, or alone when it is refused).
      { actions: ['DeleteItem'], keys: ['pinTries'] },
      // The transaction PIN's version as compared, checked in the authorization's transaction.
      { actions: ['ConditionCheckItem'], keys: ['user'] },
      // An SMS-strength session's payments of the day in the currency, read and replaced (contract 3.15).
      { actions: ['GetItem', 'PutItem'], keys: ['smsPayments'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
