import * as z from 'zod';
import { sessionResult } from '../tokens/session-result.js';

export const registrationResult = sessionResult.extend({
  referral_code: z.string().meta({ description: "The new user's own referral code, unique in the company" }),
});

export type RegistrationResult = z.output<typeof registrationResult>;
