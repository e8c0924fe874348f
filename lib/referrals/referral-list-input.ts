import * as z from 'zod/mini';

// The referral list's input (API contract 3.4): user_id in the query string, or in a JSON
// body as the seed's sample sends it; limit and cursor page through the list.

const userId = z.pipe(
  z.string().check(z.regex(/^[0-9a-fA-F]{32}$/, 'must be a 32-hex user id')),
  z.transform((value: string) => value.toLowerCase()),
);

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export const referralListQuery = z.object({
  user_id: z.optional(userId),
  limit: z._default(
    z.pipe(
      z.pipe(z.string().check(z.regex(/^[0-9]{1,3}$/, `must be a whole number from 1 to ${MAX_PAGE_SIZE}`)), z.transform(Number)),
      z.int().check(z.gte(1, `must be from 1 to ${MAX_PAGE_SIZE}`), z.lte(MAX_PAGE_SIZE, `must be from 1 to ${MAX_PAGE_SIZE}`)),
    ),
    DEFAULT_PAGE_SIZE,
  ),
  cursor: z.optional(z.string().check(z.maxLength(512))),
});

export const referralListBody = z.object({ user_id: z.optional(userId) });

export type ReferralListQuery = z.output<typeof referralListQuery>;
