// Texts through the SMS queue (docs/scaling.md): the consumer's pacing per sending pool and
// country, SNS throttling retried with backoff, what is dropped and what comes again; the request
// side with the real SQS client against an SQS-speaking loopback endpoint, over DynamoDB Local.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Timer } from '../../lib/clock.js';
import type { SendingPool } from '../../lib/config.js';
import { ConfigError, readConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/observability/logger.js';
import { createMetrics } from '../../lib/observability/metrics.js';
import { configuredSecret, ServerKeys } from '../../lib/secrets/server-keys.js';
import { type DeliveryParts, deliverQueuedTexts, type QueuedRecord } from '../../lib/sms/queued-sms-delivery.js';
import { openQueuedText, type QueuedText, sealQueuedText } from '../../lib/sms/queued-text.js';
import { SendPacer } from '../../lib/sms/send-pacer.js';
import { InProcessQueue } from '../../lib/sms/sms-queue.js';
import type { TextMessage } from '../../lib/sms/sms-sender.js';
import { otpKey, phoneSendLimitKey } from '../../lib/store/keys.js';
import { type FakeSqs, startFakeSqs } from '../harness/sqs-fake.js';
import {
  codeIn,
  expectUnavailable,
  type InProcessService,
  invoke,
  invokeQueued,
  newCompany,
  outboxMessages,
  randomPhoneNumber,
  sampleRegistration,
  testService,
} from '../helpers.js';

const SECRET = 'ab'.repeat(32);
const keys = new ServerKeys(configuredSecret(SECRET));
const silent = createLogger('SILENT');

/**
 * Virtual time: sleepers wake in the order of their wake times, each once everything runnable has
 * run (a discrete-event clock), so nothing here waits for real and every send's time is exact.
 */
function virtualTimer(): Timer {
  let now = 0;
  const sleepers: { until: number; wake: () => void }[] = [];
  let scheduled = false;
  const step = () => {
    scheduled = false;
    sleepers.sort((a, b) => a.until - b.until);
    const next = sleepers.shift();
    if (!next) return;
    now = Math.max(now, next.until);
    next.wake();
    schedule();
  };
  const schedule = () => {
    if (scheduled || !sleepers.length) return;
    scheduled = true;
    setImmediate(step);
  };
  return {
    now: () => now,
    sleep: (ms) =>
      new Promise((wake) => {
        sleepers.push({ until: now + Math.max(0, ms), wake });
        schedule();
      }),
  };
}

interface Published extends TextMessage {
  atMs: number;
}

function consumer(settings: { pools: SendingPool[]; countryPartsPerSecond?: Record<string, number>; consumers?: number }) {
  const timer = virtualTimer();
  const published: Published[] = [];
  let failures: ((message: TextMessage) => Error | undefined) | undefined;
  const parts: DeliveryParts = {
    keys,
    clock: { now: () => Date.now() },
    timer,
    logger: silent,
    metrics: createMetrics(silent),
    sms: async (message) => {
      const error = failures?.(message);
      if (error) throw error;
      published.push({ ...message, atMs: timer.now() });
    },
    pacer: new SendPacer({ countryPartsPerSecond: {}, consumers: 1, ...settings }),
    pools: settings.pools,
  };
  return { parts, published, timer, failWith: (decide: typeof failures) => (failures = decide) };
}

let nextId = 0;
async function queued(overrides: Partial<QueuedText> = {}): Promise<QueuedRecord> {
  const text: QueuedText = {
    kind: 'text',
    companyId: 'c1',
    phoneNumber: `+1202555${String(1000 + (nextId % 9000)).padStart(4, '0')}`,
    text: 'Your code is 123456',
    country: 'US',
    expiresAt: Math.floor(Date.now() / 1000) + 300,
    ...overrides,
  };
  return { messageId: `m${nextId++}`, body: await sealQueuedText(keys, text) };
}

/** The smallest gap between consecutive sends, in ms. */
const smallestGap = (times: number[]) => Math.min(...times.slice(1).map((time, index) => time - times[index]!));

const pools: SendingPool[] = [
  { name: 'us-toll-free', countries: ['US', 'CA'], partsPerSecond: 3, originationNumber: '+18885550100' },
  { name: 'rest', countries: ['*'], partsPerSecond: 20 },
];

describe('the queue consumer paces sends', () => {
  it("holds each pool's rate: 30 texts to a 3-parts-a-second pool leave 333 ms apart, from its own number", async () => {
    const { parts, published } = consumer({ pools });
    const records = await Promise.all(Array.from({ length: 30 }, () => queued()));
    expect(await deliverQueuedTexts(parts, records, Number.POSITIVE_INFINITY)).toEqual([]);
    expect(published).toHaveLength(30);
    const times = published.map((text) => text.atMs);
    expect(smallestGap(times)).toBeGreaterThanOrEqual(1000 / 3 - 0.001);
    // No slower than the rate either: the last starts at 29 intervals.
    expect(times.at(-1)).toBeCloseTo((29 * 1000) / 3, 3);
    expect(new Set(published.map((text) => text.originationNumber))).toEqual(new Set(['+18885550100']));
  });

  it('counts message parts: a two-part text takes two slots', async () => {
    const { parts, published } = consumer({ pools });
    const long = 'x'.repeat(200); // GSM-7, 200 septets: two parts of 153
    const records = [await queued({ text: long }), await queued(), await queued({ text: long }), await queued()];
    await deliverQueuedTexts(parts, records, Number.POSITIVE_INFINITY);
    expect(published.map((text) => Math.round(text.atMs))).toEqual([0, 667, 1000, 1667]);
  });

  it('paces pools apart, and a country cap on top of its pool', async () => {
    const { parts, published } = consumer({ pools, countryPartsPerSecond: { IN: 2 } });
    const records = [
      ...(await Promise.all(Array.from({ length: 6 }, () => queued({ country: 'US' })))),
      ...(await Promise.all(Array.from({ length: 6 }, () => queued({ country: 'IN', phoneNumber: '+919812345678' })))),
      ...(await Promise.all(Array.from({ length: 6 }, () => queued({ country: 'MX', phoneNumber: '+5215512345678' })))),
    ];
    await deliverQueuedTexts(parts, records, Number.POSITIVE_INFINITY);
    const timesTo = (prefix: string) => published.filter((text) => text.phoneNumber.startsWith(prefix)).map((text) => text.atMs);
    expect(smallestGap(timesTo('+1'))).toBeGreaterThanOrEqual(333);
    // India: its cap of 2 a second, slower than the shared pool's 20.
    expect(smallestGap(timesTo('+91'))).toBeGreaterThanOrEqual(500);
    // Mexico shares the 20-a-second pool with India, and is not held to India's cap.
    expect(Math.max(...timesTo('+52'))).toBeLessThan(1000);
  });

  it("gives each consumer its share: with 2 at once, each sends at half the pool's rate", async () => {
    const { parts, published } = consumer({ pools, consumers: 2 });
    await deliverQueuedTexts(parts, await Promise.all(Array.from({ length: 5 }, () => queued())), Number.POSITIVE_INFINITY);
    expect(smallestGap(published.map((text) => text.atMs))).toBeGreaterThanOrEqual(666);
  });

  it('leaves to the queue what it cannot start before its deadline, and sends it on the next batch', async () => {
    const { parts, published, timer } = consumer({ pools });
    const records = await Promise.all(Array.from({ length: 20 }, () => queued()));
    // 4 s less the 2.5 s kept for a publish: slots up to 1.5 s, five of them at 3 a second.
    const again = await deliverQueuedTexts(parts, records, timer.now() + 4000);
    expect(published).toHaveLength(5);
    expect(again).toEqual(records.slice(5).map((record) => record.messageId));
    const later = await deliverQueuedTexts(parts, records.slice(5), Number.POSITIVE_INFINITY);
    expect(later).toEqual([]);
    expect(published).toHaveLength(20);
    expect(smallestGap(published.map((text) => text.atMs))).toBeGreaterThanOrEqual(1000 / 3 - 0.001);
  });
});

describe('the queue consumer', () => {
  it('retries SNS throttling with backoff, holding the pool back, until the text goes', async () => {
    const { parts, published, failWith } = consumer({ pools });
    let throttles = 3;
    failWith(() =>
      throttles-- > 0 ? Object.assign(new Error('Rate exceeded'), { name: 'ThrottledException', $fault: 'client' }) : undefined,
    );
    const [first, second] = [await queued(), await queued()];
    expect(await deliverQueuedTexts(parts, [first, second], Number.POSITIVE_INFINITY)).toEqual([]);
    expect(published).toHaveLength(2);
    expect(throttles).toBe(-2);
  });

  it('drops decoys, texts whose code expired and bodies that do not open; sends none of them', async () => {
    const { parts, published } = consumer({ pools });
    const tampered = await queued();
    tampered.body = tampered.body.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'));
    const records = [
      await queued({ kind: 'decoy' }),
      await queued({ expiresAt: Math.floor(Date.now() / 1000) - 1 }),
      tampered,
      { messageId: 'not-sealed', body: 'hello' },
    ];
    expect(await deliverQueuedTexts(parts, records, Number.POSITIVE_INFINITY)).toEqual([]);
    expect(published).toEqual([]);
  });

  it('sends back what SNS failed to take, and drops what SNS refused for good (an opted-out number)', async () => {
    const { parts, published, failWith } = consumer({ pools });
    const [down, refused, fine] = [await queued(), await queued(), await queued()];
    const phoneOf = async (record: QueuedRecord) => (await openQueuedText(keys, record.body))!.phoneNumber;
    const [downPhone, refusedPhone] = [await phoneOf(down), await phoneOf(refused)];
    failWith((message) => {
      if (message.phoneNumber === downPhone) return Object.assign(new Error('boom'), { name: 'InternalErrorException', $fault: 'server' });
      if (message.phoneNumber === refusedPhone)
        return Object.assign(new Error('opted out'), { name: 'InvalidParameterException', $fault: 'client' });
      return undefined;
    });
    expect(await deliverQueuedTexts(parts, [down, refused, fine], Number.POSITIVE_INFINITY)).toEqual([down.messageId]);
    expect(published).toHaveLength(1);
  });

  it('seals what it queues: no code, phone or text in the body, decoys the same size as texts', async () => {
    const text = await queued({ text: 'Your code is 654321', phoneNumber: '+12025550199' });
    const decoy = await queued({ kind: 'decoy', text: 'Your code is 000000', phoneNumber: '+12025550198' });
    expect(text.body).not.toMatch(/654321|2025550199|code/);
    expect(text.body.length).toBe(decoy.body.length);
    expect((await openQueuedText(keys, text.body))?.text).toBe('Your code is 654321');
    // Another server secret opens nothing.
    expect(await openQueuedText(new ServerKeys(configuredSecret('cd'.repeat(32))), text.body)).toBeUndefined();
  });
});

describe('the in-process queue (local stages)', () => {
  it('delivers in batches, sends a failed message again after its delay, and sets one aside after its tries', async () => {
    const tries = new Map<string, number>();
    const sent: string[] = [];
    const queue = new InProcessQueue(
      async (records) => {
        const again: string[] = [];
        for (const record of records) {
          tries.set(record.body, (tries.get(record.body) ?? 0) + 1);
          if (record.body === 'never' || (record.body === 'second' && tries.get('second') === 1)) again.push(record.messageId);
          else sent.push(record.body);
        }
        return again;
      },
      {
        timer: { now: () => performance.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) },
        logger: silent,
        visibilityMs: 5,
      },
    );
    for (const body of ['first', 'second', 'never']) await queue.enqueue(body);
    await queue.idle();
    expect(sent.sort()).toEqual(['first', 'second']);
    expect(tries.get('never')).toBe(5);
    expect(queue.deadLetters.map((record) => record.body)).toEqual(['never']);
  });
});

describe('SMS_DELIVERY', () => {
  it('needs a queue URL on a deployed stage, and checks the pools', () => {
    expect(() => readConfig({ STAGE: 'prod', SMS_DELIVERY: 'queue' })).toThrow(/SMS_QUEUE_URL/);
    expect(() =>
      readConfig({ STAGE: 'prod', SMS_QUEUE_URL: 'https://sqs', SMS_POOLS: '[{"name":"a","countries":["usa"],"partsPerSecond":3}]' }),
    ).toThrow(ConfigError);
    expect(() => readConfig({ STAGE: 'prod', SMS_QUEUE_URL: 'https://sqs', SMS_COUNTRY_PARTS_PER_SECOND: '{"IN":0}' })).toThrow(
      /SMS_COUNTRY/,
    );
    const config = readConfig({ STAGE: 'prod', SMS_QUEUE_URL: 'https://sqs', SMS_POOLS: JSON.stringify(pools) });
    expect(config.sms.delivery).toBe('queue');
    expect(config.sms.pacing.pools).toEqual(pools);
  });
});

describe('login_phone through the queue (the real SQS client, a loopback SQS)', () => {
  let sqs: FakeSqs;
  let service: InProcessService;
  let companyId: string;

  beforeAll(async () => {
    sqs = await startFakeSqs();
    service = testService({ SMS_DELIVERY: 'queue', SQS_ENDPOINT: sqs.endpoint, SMS_QUEUE_URL: sqs.queueUrl });
    companyId = (await newCompany(service)).company_id;
  });
  afterAll(() => sqs?.close());

  const send = (target: object) => invoke(service.handlers.loginPhone, { path: '/l', headers: { CompanyID: companyId }, body: target });
  const storedCode = async (phone: string) =>
    (await service.app.table.client.send(new GetCommand({ TableName: service.app.table.name, Key: otpKey(companyId, phone, 2, 1) }))).Item;

  async function registered() {
    const body = sampleRegistration();
    expect((await invoke(service.handlers.userRegister, { path: '/r', headers: { CompanyID: companyId }, body })).status).toBe(200);
    return { dial_code: '+1', phone_number: String(body.phone_number), user_type: 2, otp_type: 1 };
  }

  it('answers 200 with the code stored before its text is queued; the consumer sends it and it logs in', async () => {
    const login = await registered();
    const phone = `+1${login.phone_number}`;
    let storedWhenQueued: unknown;
    sqs.onSend = async () => {
      storedWhenQueued = await storedCode(phone);
    };
    expect((await send(login)).status).toBe(200);
    sqs.onSend = () => {};
    expect(storedWhenQueued).toMatchObject({ send_id: expect.any(String) });
    const message = sqs.sent.at(-1)!;
    expect(message.queueUrl).toBe(sqs.queueUrl);
    // Nothing was sent in the request: the consumer sends it.
    expect(outboxMessages(service.app.config.sms.outboxFile, phone)).toEqual([]);
    expect(await invokeQueued(service.queued.smsSend, [message])).toEqual([]);
    const code = codeIn(outboxMessages(service.app.config.sms.outboxFile, phone).at(-1));
    const verified = await invoke(service.handlers.verifyOtp, {
      path: '/v',
      headers: { CompanyID: companyId },
      body: { ...login, otp: code },
    });
    expect(verified.status).toBe(200);
  });

  it('queues a decoy of the same size for a phone with no account, which the consumer never sends', async () => {
    const login = await registered();
    expect((await send(login)).status).toBe(200);
    const real = sqs.sent.at(-1)!;
    const nobody = { dial_code: '+1', phone_number: randomPhoneNumber(), user_type: 2, otp_type: 1 };
    expect((await send(nobody)).status).toBe(200);
    const decoy = sqs.sent.at(-1)!;
    expect(decoy.body.length).toBe(real.body.length);
    expect(await invokeQueued(service.queued.smsSend, [decoy])).toEqual([]);
    expect(outboxMessages(service.app.config.sms.outboxFile, `+1${nobody.phone_number}`)).toEqual([]);
  });

  it('answers 503 (code 16) when the queue refuses, leaving no code and giving the send back', async () => {
    const login = await registered();
    const phone = `+1${login.phone_number}`;
    sqs.failWith = 'InternalError';
    try {
      expectUnavailable(await send(login));
    } finally {
      sqs.failWith = undefined;
    }
    expect(await storedCode(phone)).toBeUndefined();
    const { Item: counters } = await service.app.table.client.send(
      new GetCommand({ TableName: service.app.table.name, Key: phoneSendLimitKey(companyId, phone) }),
    );
    expect(counters).toBeUndefined();
    expect((await send(login)).status).toBe(200);
  });
});
