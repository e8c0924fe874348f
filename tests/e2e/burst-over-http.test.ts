// Bursts as clients meet them: concurrent HTTP requests to serverless-offline, which serves them
// all on this machine's cores (2 in CI). Every answer must be the envelope, inside the function
// timeout: a registration that ran out of time used to come back as serverless-offline's own
// HTTP 200 {"errorMessage": "[504] - Lambda timeout."}, which a client counts as a success.
// Twenty registrations of one person at once (one 200, nineteen 409 code 7) are
// tests/users/registration.test.ts's, which also checks the claims each left.
import { describe, expect, it } from 'vitest';
import { sampleRegistration } from '../helpers.js';
import { expectDocumented } from './conformance.js';
import { useOfflineService } from './offline-server.js';

const service = useOfflineService();
const REGISTER = '/wallet/v3/auth/user_register';
const BURST = 20;

async function register(body: Record<string, unknown>) {
  const started = performance.now();
  const response = await fetch(`${service.server.baseUrl}${REGISTER}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', CompanyID: service.company.company_id },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const answer = { status: response.status, headers: response.headers, body: JSON.parse(text), ms: performance.now() - started };
  expectDocumented({ method: 'POST', path: REGISTER, ...answer });
  return answer;
}

describe(`${BURST} registrations at once over HTTP`, () => {
  it('of different people: every one answers 200 in the envelope, inside the function timeout', async () => {
    const answers = await Promise.all(Array.from({ length: BURST }, () => register(sampleRegistration())));
    expect(answers.map((answer) => answer.status)).toEqual(Array(BURST).fill(200));
    expect(new Set(answers.map((answer) => answer.body.data.user_id)).size).toBe(BURST);
    for (const answer of answers) expect(answer.ms).toBeLessThan(10_000);
  });
});
