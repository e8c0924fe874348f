import * as z from 'zod/mini';
import type { Call, Principal, RequestKey } from '../call.js';
import { amountField, currencyField, payeeField, referenceField } from './payment-fields.js';

// The transaction_authorization body (API contract 3.8): the transaction PIN and the one payment it approves.

export const transactionAuthorizationBody = z.object({
  transaction_pin: z
    .string({ error: 'must be a string of 4 to 6 digits' })
    .check(
      z.regex(/^[0-9]{4,6}$/, 'must be 4 to 6 digits'),
      z.meta({ description: 'The transaction PIN (a string, so leading zeros stay)' }),
    ),
  amount: amountField,
  currency: currencyField,
  payee: payeeField,
  reference: referenceField,
});

export type TransactionAuthorizationInput = z.output<typeof transactionAuthorizationBody>;
export type TransactionAuthorizationCall = Call<TransactionAuthorizationInput, Record<string, never>, Principal> & RequestKey;
