import * as z from 'zod/mini';

/** What phone/change answers (API contract 3.11): the number changed, or (amended in round 5) a change that waits. */
export const userPhoneChangeMovedResult = z.object({
  message: z.string(),
  revoked: z.int().check(z.meta({ description: 'How many other sessions of the user ended' })),
});

export const userPhoneChangePendingResult = z.object({
  message: z.string(),
  pending: z.literal(1),
  change_id: z.string().check(z.meta({ description: 'The pending change: phone/change/cancel takes it' })),
  effective_at: z
    .int()
    .check(z.meta({ description: 'UNIX seconds from which an OTP login to the new number completes the change (void 7 days later)' })),
});

export const userPhoneChangeResult = z.union([
  userPhoneChangeMovedResult.check(z.meta({ description: 'a session begun by PIN login: the number changed at once' })),
  userPhoneChangePendingResult.check(
    z.meta({ description: 'a session begun by OTP login, with the login PIN: the change waits PHONE_CHANGE_HOLD_HOURS' }),
  ),
]);

export type UserPhoneChangeResult = z.output<typeof userPhoneChangeResult>;
export type UserPhoneChangePendingResult = z.output<typeof userPhoneChangePendingResult>;
