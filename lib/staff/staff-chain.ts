import { createHash } from 'node:crypto';
import type { App } from '../app-context.js';
import {
  type ChainedStaffRecord,
  getStaffChainHead,
  type StaffActionRecord,
  type StaffChainHead,
  staffChainWrites,
} from '../store/staff-store.js';
import type { LabelledItem } from '../store/transactions.js';

// The staff record as a hash chain per company (API contract 3.14, round 6): each record holds its
// place `seq` (1, 2, ... with no gap) and the SHA-256 of the record before it, and is appended
// through a write conditional on the company's head item (the last seq and hash). Two writers who
// read the same head both aim at the same place; the transaction of one commits, the other's head
// condition fails, and only its record items are renewed at the next place (writeTransaction's
// renew), the rest of its transaction unchanged. So concurrent actions form one chain, in the
// order their transactions committed. docs/security.md says what this shows and what it cannot.

/** The hash the first record of a chain holds as the one before it. */
export const GENESIS_HASH = '0'.repeat(64);

/** Attributes no hash covers: the item's keys, the hash itself, and the marker the stream filters on. */
const UNHASHED = new Set(['pk', 'sk', 'record_hash', 'staff_log']);

/** JSON with every object's keys sorted, and absent values left out: one text for one record, however it was read. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The SHA-256 (hex) of a record as stored: every attribute but its keys, its own hash and the stream's marker. */
export function recordHashOf(item: Record<string, unknown>): string {
  const hashed = Object.fromEntries(Object.entries(item).filter(([name]) => !UNHASHED.has(name)));
  return createHash('sha256').update(canonicalJson(hashed), 'utf8').digest('hex');
}

/** A record at the place after `head`. */
export function chainedRecord(record: StaffActionRecord, head: StaffChainHead): ChainedStaffRecord {
  const placed = { ...record, seq: head.seq + 1, prev_hash: head.hash };
  return { ...placed, record_hash: recordHashOf(placed) };
}

/**
 * A company's chain as one request sees it: its head read once (strongly consistently, begun when
 * the request starts, beside its other first reads), and again whenever another writer took the
 * place this request aimed at.
 */
export class StaffChain {
  private head: Promise<StaffChainHead>;

  constructor(
    private readonly app: Pick<App, 'table'>,
    readonly companyId: string,
  ) {
    this.head = this.read();
  }

  private read(): Promise<StaffChainHead> {
    const head = getStaffChainHead(this.app.table, this.companyId, GENESIS_HASH);
    // A request refused before it records never awaits the head: its failure must not go unhandled.
    head.catch(() => undefined);
    return head;
  }

  current(): Promise<StaffChainHead> {
    return this.head;
  }

  reload(): Promise<StaffChainHead> {
    this.head = this.read();
    return this.head;
  }
}

/**
 * The record of an action placed after the chain's head, and its writes for the action's own
 * transaction (head, record, the user's copy), each renewed in place when another writer took the
 * place first: `record` then holds the seq and hash it was written with.
 */
export async function appendToChain(
  app: Pick<App, 'table'>,
  chain: StaffChain,
  entry: StaffActionRecord,
): Promise<{ record: ChainedStaffRecord; writes: LabelledItem<'record'>[] }> {
  const record = {} as ChainedStaffRecord;
  const writes: LabelledItem<'record'>[] = [];
  const place = (head: StaffChainHead) => {
    for (const key of Object.keys(record)) delete (record as unknown as Record<string, unknown>)[key];
    Object.assign(record, chainedRecord(entry, head));
    staffChainWrites(app.table, record).forEach((item, index) => {
      const write = writes[index];
      if (write) write.item = item;
      else writes.push({ label: 'record', item, renew });
    });
  };
  const renew = async () => place(await chain.reload());
  place(await chain.current());
  return { record, writes };
}
