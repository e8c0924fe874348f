// The staff record as a hash chain per company (API contract 3.14, round 6): every search, view
// and action at its place (seq 1, 2, ... with no gap), each holding the SHA-256 of the one before;
// concurrent writers form one chain; each admin.action event carries seq and record_hash; and
// npm run staff:verify names the first record changed, removed or inserted after a test edits the
// table with the SDK, and, given an anchor, a chain recomputed whole or cut at its end.
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { eventsOfRecord } from '../../lib/events/stream-events.js';
import { chainedRecord, GENESIS_HASH, recordHashOf } from '../../lib/staff/staff-chain.js';
import { staffChainHeadKey, staffChainKey } from '../../lib/store/keys.js';
import { type ChainedStaffRecord, queryStaffChain } from '../../lib/store/staff-store.js';
import { main as staffVerify } from '../../scripts/staff-verify.js';
import { type Account, invoke, newCompany, runOperator, signUp, testService } from '../helpers.js';
import { type StaffMember, staffMember } from './staff.js';

const service = testService();
const table = service.app.table;

/** A company whose staff searched a customer `searches` times, each search from its own staff member at once. */
async function busyCompany(searches: number): Promise<{ company: Company; customer: Account; staff: StaffMember[] }> {
  const company = await newCompany(service);
  const customer = await signUp(service, company);
  const staff: StaffMember[] = [];
  for (let index = 0; index < 4; index++) staff.push(await staffMember(service, company, index % 2 ? 'admin' : 'support'));
  const answers = await Promise.all(
    Array.from({ length: searches }, (_, index) =>
      invoke(service.handlers.adminUsersSearch, {
        path: '/wallet/v3/admin/users/search',
        headers: { CompanyID: company.company_id, Authorization: staff[index % staff.length]!.session },
        body: { user_id: customer.userId, reason: `ticket ${index}` },
      }),
    ),
  );
  expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
  return { company, customer, staff };
}

const verify = (company: Company, ...more: string[]) => runOperator(staffVerify, ['--company', company.company_id, ...more]);
const lastLine = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!);

async function setReason(company: Company, seq: number, reason: string): Promise<void> {
  await table.client.send(
    new UpdateCommand({
      TableName: table.name,
      Key: staffChainKey(company.company_id, seq),
      UpdateExpression: 'SET reason = :reason',
      ExpressionAttributeValues: { ':reason': reason },
    }),
  );
}

describe('the staff chain', () => {
  let company: Company;
  let chain: ChainedStaffRecord[];

  beforeAll(async () => {
    ({ company } = await busyCompany(16));
    chain = await queryStaffChain(table, company.company_id);
  });

  it('holds every record at its own place, 1 to n with no gap, each linked to the one before, the head at the last', async () => {
    // The operator's 4 registrations and role grants, then the 16 searches, however their transactions interleaved.
    expect(chain.map((record) => record.seq)).toEqual(Array.from({ length: 24 }, (_, index) => index + 1));
    expect(chain.filter((record) => record.action === 'search')).toHaveLength(16);
    chain.forEach((record, index) => {
      expect(record.prev_hash).toBe(index === 0 ? GENESIS_HASH : chain[index - 1]!.record_hash);
      expect(recordHashOf(record as unknown as Record<string, unknown>)).toBe(record.record_hash);
    });
    const { Item: head } = await service.app.table.client.send(
      new GetCommand({ TableName: table.name, Key: staffChainHeadKey(company.company_id) }),
    );
    expect(head).toMatchObject({ seq: 24, hash: chain.at(-1)!.record_hash });
  });

  it('makes each record an admin.action event carrying its seq and record_hash, never its reason', () => {
    const record = chain[7]!;
    const key = staffChainKey(company.company_id, record.seq);
    const [event] = eventsOfRecord(
      {
        eventID: 'e-1',
        eventName: 'INSERT',
        dynamodb: { Keys: marshall(key) as never, NewImage: marshall({ ...record, ...key, staff_log: 1 }) as never },
      },
      service.app.config,
    );
    expect(event?.detail).toMatchObject({
      action: record.action,
      actor_id: record.actor_id,
      seq: record.seq,
      record_hash: record.record_hash,
    });
    expect(JSON.stringify(event)).not.toContain(record.reason);
  });

  it('passes npm run staff:verify, which prints how many records it checked and the head to keep as an anchor', async () => {
    const run = await verify(company);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('24 record(s) checked');
    expect(lastLine(run.stdout)).toEqual({ whole: true, checked: 24, head: `24:${chain.at(-1)!.record_hash}` });
    const anchored = await verify(company, '--anchor', `12:${chain[11]!.record_hash}`);
    expect(anchored.code, anchored.stderr).toBe(0);
  });

  it('refuses a malformed company or anchor with its usage (exit 2)', async () => {
    for (const args of [
      [],
      ['--company', 'x'],
      ['--company', company.company_id, '--anchor', '12'],
      ['--company', company.company_id, '--anchor', `0:${GENESIS_HASH}`],
    ]) {
      const run = await runOperator(staffVerify, args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain('usage: npm run staff:verify');
    }
  });
});

describe('npm run staff:verify on a tampered chain', () => {
  it('names a record whose reason was edited with the SDK (exit 1), and passes again once it is put back', async () => {
    const { company } = await busyCompany(5);
    const chain = await queryStaffChain(table, company.company_id);
    await setReason(company, 7, 'nothing to see here');
    const run = await verify(company);
    expect(run.code).toBe(1);
    expect(lastLine(run.stdout)).toMatchObject({ whole: false, seq: 7, problem: 'changed' });
    expect(run.stderr).toContain('record 7 was changed');
    await setReason(company, 7, chain[6]!.reason);
    expect((await verify(company)).code).toBe(0);
  });

  it('names a record deleted with the SDK, in the middle or at the end', async () => {
    const { company } = await busyCompany(5);
    await table.client.send(new DeleteCommand({ TableName: table.name, Key: staffChainKey(company.company_id, 6) }));
    const middle = await verify(company);
    expect(middle.code).toBe(1);
    expect(lastLine(middle.stdout)).toMatchObject({ seq: 6, problem: 'removed' });

    const { company: other } = await busyCompany(3);
    const last = (await queryStaffChain(table, other.company_id)).length;
    await table.client.send(new DeleteCommand({ TableName: table.name, Key: staffChainKey(other.company_id, last) }));
    const end = await verify(other);
    expect(end.code).toBe(1);
    expect(lastLine(end.stdout)).toMatchObject({ seq: last, problem: 'removed' });
  });

  it('names a record inserted with the SDK, hashed and linked as the chain would, but not taken by the head', async () => {
    const { company } = await busyCompany(3);
    const chain = await queryStaffChain(table, company.company_id);
    const forged = chainedRecord(
      {
        ...chain.at(-1)!,
        action_id: 'f'.repeat(32),
        reason: 'covering',
        seq: undefined,
        prev_hash: undefined,
        record_hash: undefined,
      } as never,
      { seq: chain.length, hash: chain.at(-1)!.record_hash },
    );
    await table.client.send(
      new PutCommand({ TableName: table.name, Item: { ...forged, ...staffChainKey(company.company_id, forged.seq), staff_log: 1 } }),
    );
    const run = await verify(company);
    expect(run.code).toBe(1);
    expect(lastLine(run.stdout)).toMatchObject({ seq: chain.length + 1, problem: 'inserted' });
  });

  it('passes a chain recomputed whole after an edit, or cut at its end with the head moved back, but not against an anchor', async () => {
    const { company } = await busyCompany(5);
    const chain = await queryStaffChain(table, company.company_id);
    const anchor = `9:${chain[8]!.record_hash}`;
    // Whoever can write the table edits record 4 and recomputes every hash after it, and the head.
    let head = { seq: 3, hash: chain[2]!.record_hash };
    for (const record of chain.slice(3)) {
      const { seq: _seq, prev_hash: _prev, record_hash: _hash, ...fields } = record;
      const rewritten = chainedRecord({ ...fields, ...(record.seq === 4 ? { reason: 'rewritten' } : {}) }, head);
      await table.client.send(
        new PutCommand({
          TableName: table.name,
          Item: { ...rewritten, ...staffChainKey(company.company_id, rewritten.seq), staff_log: 1 },
        }),
      );
      head = { seq: rewritten.seq, hash: rewritten.record_hash };
    }
    const moveHead = (to: { seq: number; hash: string }) =>
      table.client.send(
        new UpdateCommand({
          TableName: table.name,
          Key: staffChainHeadKey(company.company_id),
          UpdateExpression: 'SET seq = :seq, #hash = :hash',
          ExpressionAttributeNames: { '#hash': 'hash' },
          ExpressionAttributeValues: { ':seq': to.seq, ':hash': to.hash },
        }),
      );
    await moveHead(head);
    expect((await verify(company)).code).toBe(0);
    const recomputed = await verify(company, '--anchor', anchor);
    expect(recomputed.code).toBe(1);
    expect(lastLine(recomputed.stdout)).toMatchObject({ seq: 9, problem: 'anchor' });

    // Cut: the last two records deleted and the head moved back to the last one left.
    const { company: cut } = await busyCompany(5);
    const kept = await queryStaffChain(table, cut.company_id);
    const last = kept.length;
    for (const seq of [last - 1, last]) {
      await table.client.send(new DeleteCommand({ TableName: table.name, Key: staffChainKey(cut.company_id, seq) }));
    }
    await table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: staffChainHeadKey(cut.company_id),
        UpdateExpression: 'SET seq = :seq, #hash = :hash',
        ExpressionAttributeNames: { '#hash': 'hash' },
        ExpressionAttributeValues: { ':seq': last - 2, ':hash': kept[last - 3]!.record_hash },
      }),
    );
    expect((await verify(cut)).code).toBe(0);
    const short = await verify(cut, '--anchor', `${last}:${kept[last - 1]!.record_hash}`);
    expect(short.code).toBe(1);
    expect(lastLine(short.stdout)).toMatchObject({ seq: last - 1, problem: 'anchor' });
  });
});
