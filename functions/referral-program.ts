import { referralListEndpoint } from '../lib/api/referral-list-endpoint.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { listReferrals } from '../lib/referrals/referral-list.js';

// GET /wallet/v3/reward_promotion/referral_program (API contract 3.4)
export const handler = apiHandler(referralListEndpoint, ({ query, body, company, principal }) =>
  listReferrals(company, principal, { ...query, bodyUserId: body.user_id }),
);
