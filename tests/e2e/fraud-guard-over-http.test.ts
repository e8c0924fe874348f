// The SMS fraud guard over HTTP: serverless-offline passes the caller's address as
// requestContext.http.sourceIp, as API Gateway does; a header a client sets changes nothing.
// On the run's shared server, with the per-address limits the file's company sets for itself
// (the server's defaults are off): an address's counters count only for companies that limit it.
import { beforeAll, describe, expect, it } from 'vitest';
import { updateCompanySettings } from '../../lib/companies/companies.js';
import { randomPhoneNumber } from '../helpers.js';
import { expectDocumented } from './conformance.js';
import { useOfflineService } from './offline-server.js';

const service = useOfflineService();

beforeAll(async () => {
  const { table, clock } = service.server.local.app;
  await updateCompanySettings(table, clock, service.company.company_id, {
    limits: { sends_per_address_per_hour: 2, verifies_per_address: 2 },
  });
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${service.server.baseUrl}/wallet/v3/auth/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', CompanyID: service.company.company_id, ...headers },
    body: JSON.stringify(body),
  });
  const answer = { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
  expectDocumented({ method: 'POST', path: `/wallet/v3/auth/${path}`, ...answer });
  return answer;
}

const verification = (phone: string) => ({ dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 });

describe('the SMS fraud guard over HTTP', () => {
  it('refuses a destination that is not a mobile line with 400 code 15', async () => {
    const answer = await post('login_phone', verification('8005550100'));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: [15], data: { errors: [{ code: 15, field: 'phone_number' }] } });
  });

  it('limits send requests per source address (here 2 an hour), whatever X-Forwarded-For says', async () => {
    const answers = [];
    for (let index = 0; index < 3; index++)
      answers.push(await post('login_phone', verification(randomPhoneNumber()), { 'X-Forwarded-For': `192.0.2.${index}` }));
    // The refused destination above was refused before any count: two sends pass.
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 429]);
    expect(answers[2]!.body.error).toEqual([12]);
    expect(Number(answers[2]!.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('limits verify attempts per source address (here 2 per 5 minutes)', async () => {
    const target = { ...verification(randomPhoneNumber()), otp: '000000' };
    const answers = [];
    for (let index = 0; index < 3; index++) answers.push(await post('verify_otp', target));
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 429]);
    expect(answers[2]!.body.error).toEqual([12]);
  });
});
