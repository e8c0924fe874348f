import * as z from 'zod/mini';
import { hexIdField } from '../ids.js';
import { amountField, currencyField, payeeField, referenceField } from './payment-fields.js';

// What the payment service sends redeemAuthorization through the Lambda API, and what it gets back
// inside the envelope (API contract 3.8). docs/redeem-authorization.schema.json is generated from these.

export const redeemAuthorizationPayload = z.object({
  company_id: hexIdField('company id'),
  authorization_token: z
    .string()
    .check(z.minLength(1), z.maxLength(256), z.meta({ description: 'The authorization_token transaction_authorization gave the user' })),
  amount: amountField,
  currency: currencyField,
  payee: payeeField,
  reference: referenceField,
});

export type RedeemAuthorizationInput = z.output<typeof redeemAuthorizationPayload>;

export const redeemAuthorizationResult = z.object({
  user_id: z.string().check(z.meta({ description: 'The user who approved the payment' })),
  amount: z.string().check(z.meta({ description: 'The approved amount, normalised: no leading zeros, no trailing fraction zeros' })),
  currency: z.string(),
  payee: z.string(),
  reference: z.string(),
  authorized_date: z.int().check(z.meta({ description: 'When the user approved it (UNIX seconds)' })),
  acr: z.enum(['strong', 'sms']).check(
    z.meta({
      description:
        'How strong the session that approved it was (contract 3.15): strong (a PIN login on a settled device, a passkey) or sms (a session an SMS code alone could open). Approvals from before round 6 (they live 120 s) say sms: any session could make them',
    }),
  ),
});

export type RedeemAuthorizationResult = z.output<typeof redeemAuthorizationResult>;
