import { apiHandler } from '../lib/http/api-handler.js';
import { referralListBody, referralListQuery } from '../lib/referrals/referral-list-input.js';
import { listReferrals } from '../lib/referrals/referral-list.js';

// GET /wallet/v3/reward_promotion/referral_program (API contract 3.4)
export const handler = apiHandler(
  { auth: 'required', query: referralListQuery, body: referralListBody },
  ({ query, body, company, principal }) => listReferrals(company, principal, { ...query, bodyUserId: body.user_id }),
);
