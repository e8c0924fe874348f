// The SMS queue as deployed, over HTTP: serverless-offline's login_phone queues each text with the
// real SQS client into a loopback SQS, whose event source hands batches to the smsSend function
// through serverless-offline's Lambda API, at most 2 at once (tests/harness/sms-queue-emulator.ts).
// A pool of 2 parts a second: 10 sends at once are all answered 200 at once, and their texts
// leave at the pool's pace (4 s for the 8 after the consumers' first; a pool that did not pace
// would send all 10 within a second, twice what any second may hold).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { createLogger } from '../../lib/observability/logger.js';
import { type SmsQueueEmulator, startSmsQueueEmulator } from '../harness/sms-queue-emulator.js';
import { codeIn, newCompany, outboxEntries, outboxMessages, randomPhoneNumber } from '../helpers.js';
import { expectDocumented } from './conformance.js';
import { OFFLINE_START_TIMEOUT_MS, type OfflineServer, startOffline } from './offline-server.js';

const RATE = 2;
const CONSUMERS = 2;
const SENDS = 10;

let queue: SmsQueueEmulator;
let server: OfflineServer;
let company: Company;

beforeAll(async () => {
  queue = await startSmsQueueEmulator({ functionName: 'wallet-auth-test-smsSend', consumers: CONSUMERS, logger: createLogger('SILENT') });
  server = await startOffline({
    ...queue.environment,
    SMS_POOLS: JSON.stringify([{ name: 'all', countries: ['*'], partsPerSecond: RATE }]),
    // One source address sends them all, to numbers of a few ranges.
    OTP_SENDS_PER_ADDRESS_PER_HOUR: '0',
    OTP_SENDS_PER_PREFIX_PER_HOUR: '0',
  });
  queue.lambdaUrl = server.lambdaUrl;
  company = await newCompany(server.local);
}, OFFLINE_START_TIMEOUT_MS);

afterAll(async () => {
  await server?.stop();
  await queue?.close();
});

const LOGIN_PHONE = '/wallet/v3/auth/login_phone';

/** A login_phone over HTTP, checked against the published document. */
async function send(target: object) {
  const response = await fetch(`${server.baseUrl}${LOGIN_PHONE}`, {
    method: 'POST',
    headers: { CompanyID: company.company_id, 'Content-Type': 'application/json' },
    body: JSON.stringify(target),
  });
  const answer = { method: 'POST', path: LOGIN_PHONE, status: response.status, headers: response.headers, body: await response.json() };
  expectDocumented(answer);
  return answer;
}

/** Each text sent to these phones, by time. */
const textsTo = (phones: string[]) =>
  phones.flatMap((phone) => outboxEntries(server.env.SMS_OUTBOX_FILE!, `+1${phone}`)).sort((a, b) => a.sentAt - b.sentAt);

describe('codes through the SMS queue, over HTTP', () => {
  it(`answers ${SENDS} sends at once with 200 before their texts have left, then sends them at ${RATE} a second`, async () => {
    const phones = Array.from({ length: SENDS }, () => randomPhoneNumber());
    const answers = await Promise.all(phones.map((phone) => send({ dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 })));
    expect(answers.map((answer) => answer.status)).toEqual(phones.map(() => 200));
    // Answered once queued: the pool has not sent them all yet (that takes 4 s).
    expect(textsTo(phones).length).toBeLessThan(SENDS);

    await expect.poll(() => textsTo(phones).length, { timeout: 40_000, interval: 250 }).toBe(SENDS);
    const times = textsTo(phones).map((text) => text.sentAt);
    // Each consumer sends at RATE / CONSUMERS: together never more than RATE a second, give or
    // take one send each at a window's edge.
    for (const start of times)
      expect(times.filter((time) => time >= start && time < start + 1000).length).toBeLessThanOrEqual(RATE + CONSUMERS);
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(((SENDS - CONSUMERS) / RATE) * 1000 - 500);

    // A queued code verifies.
    const [phone] = phones;
    const code = codeIn(outboxMessages(server.env.SMS_OUTBOX_FILE!, `+1${phone}`).at(-1));
    const verified = await fetch(`${server.baseUrl}/wallet/v3/auth/verify_otp`, {
      method: 'POST',
      headers: { CompanyID: company.company_id, 'Content-Type': 'application/json' },
      body: JSON.stringify({ dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2, otp: code }),
    });
    expect(verified.status).toBe(200);
  }, 90_000);

  it('queues a decoy for a login code to a phone with no account, and sends nothing to it', async () => {
    const queued = queue.sqs.sent.length;
    const nobody = randomPhoneNumber();
    const answer = await send({ dial_code: '+1', phone_number: nobody, user_type: 2, otp_type: 1 });
    expect(answer.status).toBe(200);
    expect(queue.sqs.sent.length).toBe(queued + 1);
    await queue.queue.idle();
    expect(outboxMessages(server.env.SMS_OUTBOX_FILE!, `+1${nobody}`)).toEqual([]);
  }, 30_000);
});
