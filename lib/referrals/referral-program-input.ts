import * as z from 'zod/mini';
import { hexIdField } from '../ids.js';

// The referral list's input (API contract 3.4): user_id in the query string, or in a JSON
// body as the seed's sample sends it; limit and cursor page through the list.

const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

export const referralProgramQuery = z.object({
  user_id: z.optional(hexIdField('user id')),
  limit: z._default(
    z.pipe(
      z.pipe(z.string().check(z.regex(/^[0-9]{1,3}$/, `must be a whole number from 1 to ${MAX_PAGE_SIZE}`)), z.transform(Number)),
      z.int().check(z.gte(1, `must be from 1 to ${MAX_PAGE_SIZE}`), z.lte(MAX_PAGE_SIZE, `must be from 1 to ${MAX_PAGE_SIZE}`)),
    ),
    DEFAULT_PAGE_SIZE,
  ),
  cursor: z.optional(z.string().check(z.maxLength(512))),
});

export const referralProgramBody = z.object({ user_id: z.optional(hexIdField('user id')) });

export type ReferralProgramQuery = z.output<typeof referralProgramQuery>;
