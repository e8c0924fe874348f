// npm run changes:migrate (contract 3.15, second reading, "Migration") against DynamoDB Local, in a
// table of its own (the command scans the whole table): round 5's items seeded with raw PutCommands as
// a deployed table holds them, the command run in process through its main and once as its own
// process, and what it wrote read back and used through the service.

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import { eventsOfRecord } from '../../lib/events/stream-events.js';
import { deviceSettleWrites } from '../../lib/store/device-store.js';
import {
  deviceIndexKey,
  pendingChangeKey,
  phoneChangeIndexKey,
  ROUND_5_PHONE_CHANGE_SORT_KEY,
  sessionKey,
  userDeviceKey,
  userKey,
} from '../../lib/store/keys.js';
import { writeTransaction } from '../../lib/store/transactions.js';
import { main as migrateChanges } from '../../scripts/migrate-changes.js';
import { createOwnTable } from '../harness/dynamodb-local.js';
import { type Account, invoke, newCompany, runOperator, signUp, testEnvironment, testService } from '../helpers.js';

const HOUR = 3600;
const DAY = 24 * HOUR;

let table: string;
let env: Record<string, string | undefined>;
let service: ReturnType<typeof testService>;

beforeAll(async () => {
  table = await createOwnTable(inject('dynamodbEndpoint'), 'wallet-auth-migrate');
  env = { ...process.env, ...testEnvironment(), TABLE_NAME: table };
  service = testService({}, { tableName: table });
});

const hex = () => randomBytes(16).toString('hex');
const now = () => epochSeconds(service.app.clock);
const migrate = (args: string[] = []) => runOperator(migrateChanges, args, env);
/** A run whose stderr throws at a line: the process gone half way. Its exit code. */
const migrateUntil = (args: string[], err: (line: string) => void) =>
  migrateChanges(args, { env, out: () => {}, err, input: async () => '' });

const put = (Item: Record<string, unknown>) => service.app.table.client.send(new PutCommand({ TableName: table, Item }));
const get = async (key: { pk: string; sk: string }) =>
  (await service.app.table.client.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;
async function everything(): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await service.app.table.client.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items.sort((a, b) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`));
}

/** A pending phone change as round 5 stored it (lib/store/pending-phone-change-store.ts of e1b64e8), with its index item. */
async function round5PhoneChange(
  companyId: string,
  userId: string,
  fields: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const createdAt = now() - HOUR;
  const phoneNumber = `202555${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;
  const change = {
    change_id: hex(),
    user_type: 2,
    dial_code: '+1',
    phone_number: phoneNumber,
    phone_e164: `+1${phoneNumber}`,
    created_at: createdAt,
    effective_at: createdAt + DAY,
    expires_at: createdAt + 8 * DAY,
    requested_by_request: 'none',
    ...fields,
  };
  await put({ ...userKey(companyId, userId), sk: ROUND_5_PHONE_CHANGE_SORT_KEY, ...change });
  await put({
    ...phoneChangeIndexKey(companyId, change.phone_e164, 2),
    user_id: userId,
    change_id: change.change_id,
    effective_at: change.effective_at,
    expires_at: change.expires_at,
  });
  return change;
}

/** A device as round 5 bound it (its two items, no probation), and the session begun on it then (none: its item gone). */
async function round5Device(
  companyId: string,
  userId: string,
  createdAt: number,
  session?: { began: 'otp' | 'register'; acr?: 'sms' },
): Promise<string> {
  const deviceKey = hex();
  await put({ ...deviceIndexKey(companyId, deviceKey), user_id: userId, user_type: 2, public_key: 'MFkw', created_at: createdAt });
  await put({ ...userDeviceKey(companyId, userId, deviceKey), device_key: deviceKey, created_at: createdAt, last_used_at: createdAt });
  if (session) {
    await put({
      ...sessionKey(companyId, userId, hex()),
      user_type: 2,
      device_key: deviceKey,
      created_at: createdAt + 1,
      last_used_at: createdAt + 1,
      expires_at: createdAt + 30 * DAY,
      ...session,
    });
  }
  return deviceKey;
}

const probationOf = async (companyId: string, userId: string, deviceKey: string) => {
  const [index, listing] = [await get(deviceIndexKey(companyId, deviceKey)), await get(userDeviceKey(companyId, userId, deviceKey))];
  return { index: index?.probation_since, listing: listing?.probation_since };
};

describe('npm run changes:migrate', () => {
  let company: Company;
  let account: Account;
  const seeded: Record<string, any> = {};

  beforeAll(async () => {
    company = await newCompany(service);
    account = await signUp(service, company);
    const companyId = company.company_id;
    const [ended, support, newer] = [hex(), hex(), hex()];
    seeded.live = await round5PhoneChange(companyId, account.userId);
    seeded.ended = { userId: ended, ...(await round5PhoneChange(companyId, ended, { ended_reason: 'cancelled', ended_at: now() })) };
    seeded.support = {
      userId: support,
      ...(await round5PhoneChange(companyId, support, { via: 'support', awaiting_approval: 1, started_by: hex() })),
    };
    // A change asked for since the deploy: this round's item, which the round-5 one must not replace.
    seeded.newer = { userId: newer, ...(await round5PhoneChange(companyId, newer)) };
    seeded.newerItem = { ...pendingChangeKey(companyId, newer, 'phone'), change_id: hex(), kind: 'phone', acr: 'sms', via: 'user' };
    await put(seeded.newerItem);
    const user = await get(userKey(companyId, account.userId));
    seeded.devices = {
      otp: await round5Device(companyId, account.userId, now() - 3 * HOUR, { began: 'otp' }),
      registration: await round5Device(companyId, account.userId, Number(user!.created_at), { began: 'register' }),
      sinceDeploy: await round5Device(companyId, account.userId, now() - 60, { began: 'otp', acr: 'sms' }),
      noSession: await round5Device(companyId, account.userId, now() - 2 * HOUR),
      old: await round5Device(companyId, account.userId, now() - 25 * HOUR, { began: 'otp' }),
    };
  });

  it('--dry-run writes nothing and counts what a run would do', async () => {
    const before = await everything();
    const { code, last, stderr } = await migrate(['--dry-run']);
    expect(code, stderr).toBe(0);
    expect(last).toEqual({
      phone_changes_moved: 2,
      phone_changes_left: 2,
      devices_on_probation: 2,
      devices_settled: 2,
      scanned: before.length,
      dry_run: true,
    });
    expect(stderr).toContain(`phone change ${seeded.live.change_id} of user ${account.userId} (company ${company.company_id}): would move`);
    expect(await everything()).toEqual(before);
  });

  it('moves the live round-5 phone changes, leaves the others, and puts the devices an OTP login bound on probation', async () => {
    const companyId = company.company_id;
    const { code, last, stderr } = await migrate();
    expect(code, stderr).toBe(0);
    expect(last).toMatchObject({
      phone_changes_moved: 2,
      phone_changes_left: 2,
      devices_on_probation: 2,
      devices_settled: 2,
      dry_run: false,
    });

    expect(await get(pendingChangeKey(companyId, account.userId, 'phone'))).toEqual({
      ...pendingChangeKey(companyId, account.userId, 'phone'),
      ...seeded.live,
      kind: 'phone',
      via: 'user',
      acr: 'sms',
      migrated_at: expect.any(Number),
    });
    expect(await get({ ...userKey(companyId, account.userId), sk: ROUND_5_PHONE_CHANGE_SORT_KEY })).toBeUndefined();
    // Support's recovery, still awaiting its approval: strong, as this round records one.
    expect(await get(pendingChangeKey(companyId, seeded.support.userId, 'phone'))).toMatchObject({
      change_id: seeded.support.change_id,
      via: 'support',
      acr: 'strong',
      awaiting_approval: 1,
    });
    // Left: the cancelled one (its TTL deletes it), and the one a newer change replaced.
    expect(await get({ ...userKey(companyId, seeded.ended.userId), sk: ROUND_5_PHONE_CHANGE_SORT_KEY })).toMatchObject({
      change_id: seeded.ended.change_id,
    });
    expect(await get(pendingChangeKey(companyId, seeded.ended.userId, 'phone'))).toBeUndefined();
    expect(await get({ ...userKey(companyId, seeded.newer.userId), sk: ROUND_5_PHONE_CHANGE_SORT_KEY })).toBeDefined();
    expect(await get(pendingChangeKey(companyId, seeded.newer.userId, 'phone'))).toEqual(seeded.newerItem);

    const devices = seeded.devices;
    for (const deviceKey of [devices.otp, devices.noSession]) {
      const created = (await get(deviceIndexKey(companyId, deviceKey)))!.created_at;
      expect(await probationOf(companyId, account.userId, deviceKey)).toEqual({ index: created, listing: created });
    }
    for (const deviceKey of [devices.registration, devices.sinceDeploy, devices.old]) {
      expect(await probationOf(companyId, account.userId, deviceKey)).toEqual({ index: undefined, listing: undefined });
    }
  });

  it('the app sees the moved change: the profile lists it, and the cancel route cancels it', async () => {
    const headers = { CompanyID: company.company_id, Authorization: account.authorization };
    const profile = await invoke(service.handlers.userProfile, { method: 'GET', path: '/p', headers });
    expect(profile.status).toBe(200);
    expect(profile.body.data.pending_changes).toEqual([
      {
        change_id: seeded.live.change_id,
        kind: 'phone',
        effective_at: seeded.live.effective_at,
        via: 'user',
        phone_last4: seeded.live.phone_number.slice(-4),
      },
    ]);
    const cancelled = await invoke(service.handlers.userChangesCancel, {
      path: '/c',
      headers,
      body: { change_id: seeded.live.change_id },
    });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(await get(pendingChangeKey(company.company_id, account.userId, 'phone'))).toMatchObject({ ended_reason: 'cancelled' });
  });

  it('a second run moves nothing and writes nothing, a device approved since included', async () => {
    const companyId = company.company_id;
    await writeTransaction(
      service.app.table,
      deviceSettleWrites(service.app.table, companyId, account.userId, seeded.devices.otp).map((item) => ({ label: 'device', item })),
    );
    const before = await everything();
    const { code, last } = await migrate();
    expect(code).toBe(0);
    expect(last).toMatchObject({ phone_changes_moved: 0, phone_changes_left: 2, devices_on_probation: 0 });
    expect(await everything()).toEqual(before);
  });

  it('a run that stopped half way is finished by the next', async () => {
    const companyId = company.company_id;
    const users = [hex(), hex(), hex()];
    const changes = await Promise.all(users.map((userId) => round5PhoneChange(companyId, userId)));
    let moved = 0;
    const crashed = await migrateUntil([], (line) => {
      if (line.endsWith(': moved') && ++moved === 1) throw new Error('the operator’s shell went away');
    });
    expect(crashed).toBe(1);
    const { last } = await migrate();
    expect(last).toMatchObject({ phone_changes_moved: 2 });
    for (const [index, userId] of users.entries()) {
      expect(await get(pendingChangeKey(companyId, userId, 'phone'))).toMatchObject({ change_id: changes[index]!.change_id });
      expect(await get({ ...userKey(companyId, userId), sk: ROUND_5_PHONE_CHANGE_SORT_KEY })).toBeUndefined();
    }
  });

  it('the moved change is told as user.change_pending only: its user.phone_change_pending was told in round 5', () => {
    const moved = {
      ...pendingChangeKey(hex(), hex(), 'phone'),
      ...seeded.live,
      kind: 'phone',
      acr: 'sms',
      via: 'user',
      migrated_at: now(),
    };
    const record = (image: Record<string, unknown>) =>
      ({
        eventID: hex(),
        eventName: 'INSERT',
        dynamodb: { Keys: marshall({ pk: image.pk, sk: image.sk }), NewImage: marshall(image) },
      }) as unknown as DynamoDBRecord;
    const limits = { sessionIdleSeconds: service.app.config.sessionIdleSeconds };
    expect(eventsOfRecord(record(moved), limits).map((event) => event.type)).toEqual(['user.change_pending']);
    const { migrated_at: _, ...asked } = moved;
    expect(eventsOfRecord(record(asked), limits).map((event) => event.type)).toEqual(['user.phone_change_pending', 'user.change_pending']);
  });

  it('runs as its own process: --dry-run prints its one line, an unknown option is refused (exit 2)', async () => {
    const root = resolve(import.meta.dirname, '../..');
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
        const child = execFile(resolve(root, 'node_modules/.bin/tsx'), ['scripts/migrate-changes.ts', ...args], { cwd: root, env });
        const output = { stdout: '', stderr: '' };
        child.stdout!.on('data', (chunk) => (output.stdout += chunk));
        child.stderr!.on('data', (chunk) => (output.stderr += chunk));
        child.on('close', (code) => done({ code, ...output }));
      });
    const dry = await run(['--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(dry.stdout)).toMatchObject({ phone_changes_moved: 0, devices_on_probation: 0, dry_run: true });
    expect((await run(['--apply'])).code).toBe(2);
  }, 60_000);
});
