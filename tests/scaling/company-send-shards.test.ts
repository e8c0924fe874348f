import { randomInt } from 'node:crypto';
// The company's hourly send ceiling, set on the company and counted in shards (lib/otp/send-limits.ts):
// under a burst of sends at once the total never passes the ceiling, and no shard passes its share.
import { describe, expect, it } from 'vitest';
import { type Company, updateCompanySettings } from '../../lib/companies/companies.js';
import { shardCeiling } from '../../lib/otp/send-limits.js';
import { scanItems } from '../harness/table-snapshot.js';
import { type Account, companyHourShards, expectFailure, invoke, newCompany, outboxMessages, signUp, testService } from '../helpers.js';

const service = testService();

const e164 = (account: Account) => `${account.registration.dial_code}${account.registration.phone_number}`;
const sendLogin = (company: Company, account: Account) =>
  invoke(service.handlers.loginPhone, {
    path: '/l',
    headers: { CompanyID: company.company_id },
    body: { dial_code: account.registration.dial_code, phone_number: String(account.registration.phone_number), user_type: 2, otp_type: 1 },
  });

describe('a company set to 32 sends an hour, in shards', () => {
  it('asked for 64 sends to 64 registered phones at once: exactly 32 answers 200 and 32 messages, each shard at its share', async () => {
    const company = await newCompany(service);
    await updateCompanySettings(service.app.table, service.clock, company.company_id, { limits: { sms_per_hour: 32 } });
    const accounts = await Promise.all(Array.from({ length: 64 }, () => signUp(service, company)));

    const answers = await Promise.all(accounts.map((account) => sendLogin(company, account)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(32);
    for (const refused of answers.filter((answer) => answer.status !== 200)) expectFailure(refused, 429, 12);
    const messages = accounts.flatMap((account) => outboxMessages(service.app.config.sms.outboxFile, e164(account)));
    expect(messages).toHaveLength(32);
    // Each 200 sent its message, each 429 none.
    accounts.forEach((account, index) => {
      expect(outboxMessages(service.app.config.sms.outboxFile, e164(account))).toHaveLength(answers[index]!.status === 200 ? 1 : 0);
    });

    const shards = companyHourShards(
      await scanItems(service.app.table.client, service.app.table.name, company.company_id),
      company.company_id,
    );
    // 32 over the test environment's 10 shards, written out: the first two take the remainder.
    const sentByShard = shards.map((shard) => [Number(shard.pk.split('#').at(-1)), shard.sent]).sort(([a], [b]) => Number(a) - Number(b));
    expect(sentByShard).toEqual([4, 4, 3, 3, 3, 3, 3, 3, 3, 3].map((sent, index) => [index, sent]));
  }, 300_000);

  it('splits a ceiling into shares that add up to it exactly, none empty', () => {
    // [ceiling, shards used, the shares], written out: a company's shards are at most its ceiling (7 of 10 for 7).
    const cases: [number, number, number[]][] = [
      [30, 10, Array(10).fill(3)],
      [1000, 10, Array(10).fill(100)],
      [10, 3, [4, 3, 3]],
      [11, 3, [4, 4, 3]],
      [7, 7, Array(7).fill(1)],
      [1, 1, [1]],
      [1001, 16, [...Array(9).fill(63), ...Array(7).fill(62)]],
    ];
    for (const [ceiling, used, shares] of cases) {
      expect(
        Array.from({ length: used }, (_, index) => shardCeiling(ceiling, used, index)),
        `${ceiling} over ${used}`,
      ).toEqual(shares);
    }
  });
});

describe("a send's DynamoDB requests (docs/performance.md, login_phone 'first send in window')", () => {
  // Every limit on, a warm company cache: as the bench counts.
  const counted = testService({
    OTP_SENDS_PER_ADDRESS_PER_HOUR: '100',
    OTP_SENDS_PER_PREFIX_PER_HOUR: '100',
    COMPANY_CACHE_SECONDS: '3600',
  });
  const operations: string[] = [];
  let recording = false;
  counted.app.table.client.middlewareStack.add(
    (next) => async (args) => {
      const target = (args.request as { headers: Record<string, string> }).headers['x-amz-target'];
      if (recording && target) operations.push(target.split('.')[1]!);
      return next(args);
    },
    { step: 'finalizeRequest', name: 'countSendRequests' },
  );

  it('are 8, one of them on a shard of the company hour (the pending change index read beside the claim)', async () => {
    const company = await newCompany(counted);
    const account = await signUp(counted, company);
    recording = true;
    const answer = await invoke(counted.handlers.loginPhone, {
      // An address of its own: per-address counters are shared by every test of the run (127.0.0.1 is the HTTP tests').
      sourceIp: `198.18.${randomInt(256)}.${randomInt(256)}`,
      path: '/l',
      headers: { CompanyID: company.company_id },
      body: {
        dial_code: account.registration.dial_code,
        phone_number: String(account.registration.phone_number),
        user_type: 2,
        otp_type: 1,
      },
    });
    recording = false;
    expect(answer.status).toBe(200);
    expect(operations.sort()).toEqual(['GetItem', 'GetItem', 'GetItem', 'PutItem', 'UpdateItem', 'UpdateItem', 'UpdateItem', 'UpdateItem']);
  });
});
