import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { type LocalEnvironmentOptions, localConfig } from '../../tests/harness/environment.js';
import { type FakeEventBridge, startFakeEventBridge } from '../../tests/harness/eventbridge-fake.js';
import { inProcessService, lambdaContext } from '../../tests/harness/in-process-service.js';
import { PRICES } from './prices.js';
import { mean, median, round } from './stats.js';

// The events' publisher (issue 31 point 5), in process: the time eventsPublish takes for a batch of
// stream records as Lambda hands them (100, the trigger's batchSize), in a mix of the records the
// trigger's filter lets through, against the loopback EventBridge with the real SDK client; and
// from it the cost of a million events. The requests that emit an event pay nothing for it: the
// stream carries it (no write, no round trip); its cost is this function's and EventBridge's.

/** The records of one batch, by kind, out of 100: what a day of logins, logouts and sign-ups hands the publisher. */
export const RECORD_MIX = {
  /** A session marked ended (logout, refresh reuse, PIN or phone change, device removed): session.ended. */
  sessionEnded: 35,
  /** A user's item changed with no event (a login's session count, a PIN's version): filtered in, no event. */
  userTouched: 30,
  /** A user's item added: user.registered. */
  registered: 15,
  /** A device listed: device.added. */
  deviceAdded: 8,
  /** Names or email changed: user.profile_updated. */
  profileUpdated: 7,
  /** A new number: user.phone_changed (+ user.profile_updated is not part of it). */
  phoneChanged: 3,
  /** A PIN locked by wrong tries: pin.locked. */
  pinLocked: 2,
} as const;

export interface PublisherCost {
  records: number;
  events: number;
  batches: number;
  putEventsCallsPerBatch: number;
  /** Per batch, medians: wall time of the handler, its CPU time and the rest (waiting on the loopback bus). */
  batchMs: number;
  batchCpuMs: number;
  batchWaitMs: number;
  meanBatchMs: number;
  memoryMb: number;
  /** Lambda ms for a batch: the wait as measured plus the CPU time at the function's share of a vCPU. */
  lambdaBilledMs: number;
  /** USD per million events, batches as measured (full batches of 100 records). */
  perMillionEvents: { lambda: number; eventBridge: number; streams: number; total: number };
  /** USD per million events when each batch holds one record (a quiet table: the 1 s batch window closes on one). */
  perMillionEventsOneRecordBatches: { lambda: number; eventBridge: number; streams: number; total: number };
}

const COMPANY = 'bench-company';

function record(eventName: 'INSERT' | 'MODIFY', keys: { pk: string; sk: string }, oldImage?: object, newImage?: object): DynamoDBRecord {
  const id = randomUUID().replace(/-/g, '');
  return {
    eventID: id,
    eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    eventSourceARN: 'arn:aws:dynamodb:us-east-1:000000000000:table/wallet-auth-bench/stream/2026-11-25T00:00:00.000',
    dynamodb: {
      ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
      Keys: marshall(keys) as never,
      ...(oldImage ? { OldImage: marshall(oldImage, { removeUndefinedValues: true }) as never } : {}),
      ...(newImage ? { NewImage: marshall(newImage, { removeUndefinedValues: true }) as never } : {}),
      SequenceNumber: String(BigInt(`0x${id.slice(0, 12)}`)),
      SizeBytes: 400,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

/** One batch of stream records in the mix above, with images shaped as the store writes them. */
export function streamBatch(): DynamoDBRecord[] {
  const now = Math.floor(Date.now() / 1000);
  const records: DynamoDBRecord[] = [];
  const user = () => {
    const userId = randomUUID();
    const pk = `C#${COMPANY}#USER#${userId}`;
    const profile = {
      pk,
      sk: 'PROFILE',
      user_id: userId,
      company_id: COMPANY,
      user_type: 2,
      status_id: 1,
      phone_number: '2025550123',
      phone_e164: '+12025550123',
      dial_code: '+1',
      email: `${userId.slice(0, 8)}@example.com`,
      first_name: 'Ada',
      last_name: 'King',
      referral_code: 'ABCD1234',
      password_hash: 'x'.repeat(120),
      login_pin_hash: 'x'.repeat(120),
      transaction_pin_hash: 'x'.repeat(120),
      session_count: 3,
      created_at: now - 86_400,
      updated_at: now - 3600,
    };
    return { pk, profile };
  };
  const add = (count: number, make: () => DynamoDBRecord) => {
    for (let index = 0; index < count; index++) records.push(make());
  };
  add(RECORD_MIX.sessionEnded, () => {
    const { pk } = user();
    const sid = randomUUID().replace(/-/g, '');
    const live = {
      pk,
      sk: `SESSION#${sid}`,
      refresh_hash: 'r'.repeat(64),
      expires_at: now + 3600,
      last_used_at: now - 60,
      created_at: now - 600,
    };
    return record('MODIFY', { pk, sk: live.sk }, live, { ...live, ended_reason: 'logout', ended_at_ms: Date.now() });
  });
  add(RECORD_MIX.userTouched, () => {
    const { pk, profile } = user();
    return record('MODIFY', { pk, sk: 'PROFILE' }, profile, { ...profile, session_count: 4 });
  });
  add(RECORD_MIX.registered, () => {
    const { pk, profile } = user();
    return record('INSERT', { pk, sk: 'PROFILE' }, undefined, { ...profile, created_at: now, updated_at: now });
  });
  add(RECORD_MIX.deviceAdded, () => {
    const { pk } = user();
    const device = { pk, sk: `DEVICE#${randomUUID()}`, device_key: randomUUID(), public_key: 'k'.repeat(120), created_at: now };
    return record('INSERT', { pk, sk: device.sk }, undefined, device);
  });
  add(RECORD_MIX.profileUpdated, () => {
    const { pk, profile } = user();
    return record('MODIFY', { pk, sk: 'PROFILE' }, profile, { ...profile, first_name: 'Grace', updated_at: now });
  });
  add(RECORD_MIX.phoneChanged, () => {
    const { pk, profile } = user();
    const moved = {
      ...profile,
      phone_number: '2025550199',
      phone_e164: '+12025550199',
      phone_changed_from: profile.phone_e164,
      updated_at: now,
    };
    return record('MODIFY', { pk, sk: 'PROFILE' }, profile, moved);
  });
  add(RECORD_MIX.pinLocked, () => {
    const { pk } = user();
    const tries = { pk, sk: 'PINTRIES#login', tries: 4, expires_at: now + 900 };
    return record('MODIFY', { pk, sk: tries.sk }, tries, { ...tries, tries: 5, locked_at: now });
  });
  // Lambda hands them in the stream's order: mixed.
  return records.sort(() => Math.random() - 0.5);
}

/** Lambda's duration and request charges and EventBridge's entries, per million events, for batches of `recordsPerBatch`. */
function costPerMillionEvents(billedMs: number, memoryMb: number, eventsPerInvocation: number) {
  const invocations = 1e6 / eventsPerInvocation;
  const lambda = invocations * (PRICES.lambdaPerRequest + (memoryMb / 1024) * (billedMs / 1000) * PRICES.lambdaArmPerGbSecond);
  // One entry per event, each under 64 KB: one billed chunk.
  const eventBridge = 1e6 * PRICES.eventBridgePerEntryChunk;
  // GetRecords on the table's stream by a Lambda trigger is not charged.
  const streams = 0;
  const money = (value: number) => round(value, 4);
  return { lambda: money(lambda), eventBridge: money(eventBridge), streams, total: money(lambda + eventBridge + streams) };
}

export async function measurePublisher(options: { batches: number; memoryMb: number }): Promise<PublisherCost> {
  const bus: FakeEventBridge = await startFakeEventBridge({ busName: 'wallet-auth-bench' });
  try {
    const environment: LocalEnvironmentOptions = {
      stage: 'bench',
      // The publisher reads no item: no DynamoDB is reached.
      dynamodbEndpoint: 'http://127.0.0.1:9',
      outboxFile: join(tmpdir(), `bench-events-outbox-${randomUUID()}.jsonl`),
      logLevel: 'WARN',
      settings: { EVENT_BUS_NAME: 'wallet-auth-bench', EVENTBRIDGE_ENDPOINT: bus.endpoint, EVENTS_DLQ_URL: bus.queueUrl },
    };
    const service = inProcessService(localConfig(environment));
    const publish = service.streamed.eventsPublish;
    const run = async () => {
      const records = streamBatch();
      const eventsBefore = bus.events.length;
      const callsBefore = bus.calls.putEvents;
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      const answer = await publish({ Records: records }, lambdaContext(30_000));
      const ms = performance.now() - start;
      const used = process.cpuUsage(cpuStart);
      if (answer?.batchItemFailures.length) throw new Error(`the publisher handed back ${answer.batchItemFailures.length} records`);
      return {
        ms,
        cpuMs: (used.user + used.system) / 1000,
        records: records.length,
        events: bus.events.length - eventsBefore,
        calls: bus.calls.putEvents - callsBefore,
      };
    };
    // The container's first batch builds its clients and opens the connection: not counted.
    await run();
    const runs = [];
    for (let batch = 0; batch < options.batches; batch++) runs.push(await run());
    const batchMs = median(runs.map((each) => each.ms));
    const batchCpuMs = median(runs.map((each) => each.cpuMs));
    const batchWaitMs = median(runs.map((each) => Math.max(0, each.ms - each.cpuMs)));
    const vcpu = Math.min(1, options.memoryMb / PRICES.mbPerVcpu);
    const lambdaBilledMs = Math.ceil(batchWaitMs + batchCpuMs / vcpu);
    const events = runs[0]!.events;
    // A batch of one record with an event: its CPU time a hundredth, its wait one PutEvents call.
    const oneRecordMs = Math.ceil(batchWaitMs / Math.max(1, runs[0]!.calls) + batchCpuMs / runs[0]!.records / vcpu);
    return {
      records: runs[0]!.records,
      events,
      batches: options.batches,
      putEventsCallsPerBatch: runs[0]!.calls,
      batchMs: round(batchMs),
      batchCpuMs: round(batchCpuMs),
      batchWaitMs: round(batchWaitMs),
      meanBatchMs: round(mean(runs.map((each) => each.ms))),
      memoryMb: options.memoryMb,
      lambdaBilledMs,
      perMillionEvents: costPerMillionEvents(lambdaBilledMs, options.memoryMb, events),
      perMillionEventsOneRecordBatches: costPerMillionEvents(oneRecordMs, options.memoryMb, 1),
    };
  } finally {
    await bus.close();
  }
}
