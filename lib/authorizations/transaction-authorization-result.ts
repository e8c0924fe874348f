import * as z from 'zod/mini';

export const transactionAuthorizationResult = z.object({
  authorization_token: z
    .string()
    .check(z.meta({ description: 'For the payment service to redeem once (redeemAuthorization); 256 random bits, stored only hashed' })),
  expires_in: z.int().check(z.meta({ description: 'Seconds the authorization can be redeemed' })),
  acr: z.enum(['strong', 'sms']).check(
    z.meta({
      description:
        'How strong the approving session was (contract 3.15): the payment service hears it at redeem and may set its own limits',
    }),
  ),
});

export type TransactionAuthorizationResult = z.output<typeof transactionAuthorizationResult>;
