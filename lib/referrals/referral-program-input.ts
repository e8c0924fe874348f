import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { hexIdField } from '../ids.js';
import { pageQuery } from '../paging/page-query.js';

// The referral list's input (API contract 3.4): user_id in the query string, or in a JSON
// body as the seed's sample sends it; limit and cursor page through the list.

export const referralProgramQuery = z.lazy(() =>
  z.object({
    user_id: z.optional(hexIdField('user id')),
    ...pageQuery,
  }),
);

export const referralProgramBody = z.lazy(() => z.object({ user_id: z.optional(hexIdField('user id')) }));

export type ReferralProgramQuery = z.output<typeof referralProgramQuery>;
export type ReferralProgramBody = z.output<typeof referralProgramBody>;
export type ReferralProgramCall = Call<ReferralProgramBody, ReferralProgramQuery, Principal>;
