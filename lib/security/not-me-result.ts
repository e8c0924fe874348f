import * as z from 'zod/mini';

/** What not_me answers (API contract 3.15): what it undid. */
export const notMeResult = z.object({
  message: z.string(),
  cancelled: z.int().check(z.meta({ description: 'Pending changes cancelled (a recovery by support stays)' })),
  revoked: z.int().check(z.meta({ description: 'Other sessions ended' })),
  devices_removed: z.int().check(z.meta({ description: 'Devices on probation removed, with their sessions' })),
  passkeys_removed: z.int().check(z.meta({ description: 'Passkeys registered less than CREDENTIAL_PROBATION_HOURS ago removed' })),
});

export type NotMeResult = z.output<typeof notMeResult>;
