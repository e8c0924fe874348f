import * as z from 'zod/mini';
import { listedNotification } from '../notifications/listed-notification.js';

export const referralProgramResult = z.lazy(() =>
  z.object({
    notification: z.array(listedNotification).check(z.meta({ description: 'Newest first' })),
    referral_code: z.string(),
    referral_count: z.int().check(z.meta({ description: 'Users who signed up with this code' })),
    next_cursor: z.nullable(z.string()).check(z.meta({ description: 'Pass back as `cursor` for the next page; null on the last page' })),
  }),
);

export type ReferralProgramResult = z.output<typeof referralProgramResult>;
