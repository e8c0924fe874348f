import * as z from 'zod/mini';

/** What phone/change/cancel answers (API contract 3.11). */
export const userPhoneChangeCancelResult = z.object({ message: z.string() });

export type UserPhoneChangeCancelResult = z.output<typeof userPhoneChangeCancelResult>;
