import * as z from 'zod/mini';
import { sessionResult } from '../sessions/session-result.js';

export const userRegisterResult = z.lazy(() =>
  z.extend(sessionResult(), {
    referral_code: z.string().check(z.meta({ description: "The new user's own referral code, unique in the company" })),
  }),
);

export type UserRegisterResult = z.output<typeof userRegisterResult>;
