// A short `npm run chaos`: real flows for a few seconds with 30 % of DynamoDB and SNS requests
// faulted, then the check of everything answered (scripts/local/chaos-run.ts). The full run is
// `npm run chaos` (120 s, production's hash cost). The flows mostly wait on faults, not on the
// CPU: 8 clients hashing cheaply send in 5 s about twice what 4 sent in 10 s at production's cost
// (80 requests and 14 registrations against 40 and 9, measured on 2 loaded cores).
import { describe, expect, inject, it } from 'vitest';
import { emailClaimKey, phoneClaimKey, userKey } from '../../lib/store/keys.js';
import { UserStatus } from '../../lib/users/user-status.js';
import { runChaos } from '../../scripts/local/chaos-run.js';
import { claimCheck } from '../../scripts/local/claim-check.js';
import type { StoredItem } from '../../scripts/local/table-snapshot.js';
import { TEST_HASH_COST } from '../helpers.js';

it('gives no wrong answer under 30 % faults: ambiguous registrations come back with their first outcome, nothing partial', async () => {
  const report = await runChaos({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    seconds: 5,
    faults: 0.3,
    clients: 8,
    hashCost: TEST_HASH_COST,
  });
  expect(report.wrong).toEqual([]);
  expect(report.registrations).toBeGreaterThan(0);
  expect(Object.values(report.faultsByKind).reduce((sum, count) => sum + count, 0)).toBeGreaterThan(0);
  // The claims were checked over the table afterwards (profile updates and phone changes moved some).
  expect(report.claims.phoneClaims).toBeGreaterThan(0);
  expect(report.claims).toMatchObject({ phoneClaims: report.claims.holders, problems: 0 });
}, 90_000);

// The check the run ends with, on tables built by hand: each broken rule is named.
describe('the claim check', () => {
  const company = 'c1';
  const user = (id: string, phone: string, email: string | undefined, status: number = UserStatus.ACTIVE): StoredItem => ({
    ...userKey(company, id),
    user_id: id,
    user_type: 2,
    phone_e164: phone,
    ...(email ? { email } : {}),
    status_id: status,
  });
  const phoneClaim = (phone: string, id: string): StoredItem => ({ ...phoneClaimKey(company, phone, 2), user_id: id });
  const emailClaim = (email: string, id: string): StoredItem => ({ ...emailClaimKey(company, email, 2), user_id: id });
  const sound = [
    user('u1', '+12025550101', 'a@example.com'),
    phoneClaim('+12025550101', 'u1'),
    emailClaim('a@example.com', 'u1'),
    user('u2', '+12025550102', undefined),
    phoneClaim('+12025550102', 'u2'),
    // A reclaimed user holds nothing.
    user('u3', '+12025550103', 'c@example.com', UserStatus.PHONE_RECLAIMED),
  ];

  it('finds nothing in a sound table', () => {
    expect(claimCheck(sound, company)).toEqual({ phoneClaims: 2, emailClaims: 1, holders: 2, problems: [] });
  });

  it('names a claim left behind by a user who moved, a claim by nobody, an unclaimed value and a value two users record', () => {
    // u1 moved to b@: its old claim stayed, the new one was never written.
    const moved = sound.map((item) => (item.user_id === 'u1' && item.sk === 'PROFILE' ? { ...item, email: 'b@example.com' } : item));
    expect(claimCheck(moved, company).problems).toEqual([
      'email a@example.com (type 2) is claimed by user u1, whose record has b@example.com',
      "user u1's email b@example.com is claimed by nobody",
    ]);
    expect(claimCheck([...sound, phoneClaim('+12025550199', 'gone')], company).problems).toEqual([
      'phone +12025550199 (type 2) is claimed by nobody (user gone is not stored)',
    ]);
    expect(claimCheck([...sound, phoneClaim('+12025550103', 'u3')], company).problems).toEqual([
      'phone +12025550103 (type 2) is claimed by user u3 of status 3',
    ]);
    // u2 records u1's phone as well: claimed twice from the records' side.
    const twice = sound.map((item) => (item.user_id === 'u2' && item.sk === 'PROFILE' ? { ...item, phone_e164: '+12025550101' } : item));
    expect(claimCheck(twice, company).problems).toEqual([
      'phone +12025550102 (type 2) is claimed by user u2, whose record has +12025550101',
      "user u2's phone +12025550101 is claimed by user u1",
      '2 users (u1, u2) record PHONE#+12025550101#TYPE#2',
    ]);
  });
});
