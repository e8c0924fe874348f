import * as z from 'zod';

// The referral list's input (API contract 3.4): user_id in the query string, or in a JSON
// body as the seed's sample sends it; limit and cursor page through the list.

const userId = z
  .string()
  .regex(/^[0-9a-fA-F]{32}$/, 'must be a 32-hex user id')
  .transform((value) => value.toLowerCase());

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export const referralListQuery = z.object({
  user_id: userId.optional(),
  limit: z
    .string()
    .regex(/^[0-9]{1,3}$/, `must be a whole number from 1 to ${MAX_PAGE_SIZE}`)
    .transform(Number)
    .pipe(z.int().min(1, `must be from 1 to ${MAX_PAGE_SIZE}`).max(MAX_PAGE_SIZE, `must be from 1 to ${MAX_PAGE_SIZE}`))
    .default(DEFAULT_PAGE_SIZE),
  cursor: z.string().max(512).optional(),
});

export const referralListBody = z.object({ user_id: userId.optional() });

export type ReferralListQuery = z.output<typeof referralListQuery>;
