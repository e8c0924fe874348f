import * as z from 'zod/mini';

/** One user as a search shows them: enough to know it is the caller, with the phone and email masked. */
export const userSummary = z.object({
  user_id: z.string(),
  user_type: z.int(),
  first_name: z.string(),
  last_name: z.string(),
  phone_last4: z.string().check(z.meta({ description: 'The last 4 digits of the phone number' })),
  email_masked: z.nullable(z.string().check(z.meta({ description: 'The first letter, ***, and the domain: a***@example.com' }))),
  phone_verified: z.int(),
  status_id: z.int(),
  created_date: z.int(),
});

export const userSearchResult = z.object({
  users: z.array(userSummary).check(z.meta({ description: 'Empty, or the one user the exact key names' })),
});

export type UserSummary = z.output<typeof userSummary>;
export type UserSearchResult = z.output<typeof userSearchResult>;
