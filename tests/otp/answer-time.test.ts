// login_phone's answer time must not tell a registered phone from an unregistered one (ASVS
// 6.3.8): only the registered one waits for SMS, so the other waits as long. The medians are
// measured and checked by the bench (npm run bench, scripts/bench/answer-time.ts), where timing
// belongs; here, that the wait never outlasts the request, and the bench's check itself.
import { describe, expect, it } from 'vitest';
import { answerTimeEqualized } from '../../scripts/bench/answer-time.js';
import { invoke, newCompany, randomPhoneNumber, testService } from '../helpers.js';

describe('the bench’s answer-time check', () => {
  const senderMs = { min: 30, max: 60 };
  const medians = (registeredMs: number, unregisteredMs: number) => ({
    registeredMs,
    unregisteredMs,
    differenceMs: registeredMs - unregisteredMs,
  });
  it('passes medians within 10 ms with the wait, apart by the sender’s time without it', () => {
    expect(answerTimeEqualized({ pairs: 30, senderMs, padded: medians(52, 47), unpadded: medians(50, 5) }, 10)).toBe(true);
  });
  it('fails medians 10 ms apart with the wait, or a measurement that cannot see the sender without it', () => {
    expect(answerTimeEqualized({ pairs: 30, senderMs, padded: medians(57, 47), unpadded: medians(50, 5) }, 10)).toBe(false);
    expect(answerTimeEqualized({ pairs: 30, senderMs, padded: medians(47, 47), unpadded: medians(6, 5) }, 10)).toBe(false);
  });
});

describe('login_phone answer time', () => {
  it('never waits past the request’s time: a wait longer than the function has is cut short', async () => {
    // 2 s less a 0.5 s margin leave 1.5 s; the wait asked for ends 0.1 s short of what is left of
    // them. The timer records the wait instead of sleeping it, so no wall time is measured.
    const waits: number[] = [];
    const service = testService(
      {
        FUNCTION_TIMEOUT_SECONDS: '2',
        DEADLINE_MARGIN_MS: '500',
        DYNAMODB_TIMEOUT_MS: '1000',
        SMS_DECOY_PRIOR_MEDIAN_MS: '5000',
        SMS_DECOY_PRIOR_P90_MS: '5000',
      },
      { timer: { now: () => performance.now(), sleep: async (ms) => void waits.push(ms) } },
    );
    const company = await newCompany(service);
    const body = { dial_code: '+1', phone_number: randomPhoneNumber(), user_type: 2, otp_type: 1 };
    const answer = await invoke(service.handlers.loginPhone, { path: '/l', headers: { CompanyID: company.company_id }, body });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(0);
    expect(waits[0]).toBeLessThanOrEqual(1400);
  });
});
