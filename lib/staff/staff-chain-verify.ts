import { STAFF_CHAIN_PREFIX } from '../store/keys.js';
import { getStaffChainHead, queryStaffChainPages, type StaffChainHead } from '../store/staff-store.js';
import type { Table } from '../store/table.js';
import { GENESIS_HASH, recordHashOf } from './staff-chain.js';

// The check of a company's staff chain (npm run staff:verify, API contract 3.14 round 6): every
// record in key order, each holding its own place, hashing to its own record_hash and holding the
// hash of the record before it; then the head, which names the last record; then, when given, an
// anchor kept outside the table (a seq and hash from an admin.action event). What each finding
// means, and what no check of the table alone can find: docs/security.md, "The staff record".

/** What a check found wrong first, and where. */
export interface ChainProblem {
  /** The record named: the first one changed, removed or inserted (or the anchor's). */
  seq: number;
  kind: 'changed' | 'removed' | 'inserted' | 'anchor';
  detail: string;
}

export type ChainCheck = { whole: true; checked: number; head: StaffChainHead } | { whole: false; checked: number; problem: ChainProblem };

const SORT_KEY = new RegExp(`^${STAFF_CHAIN_PREFIX}(\\d{15})$`);

/** Walks the chain from its first record; stops at the first problem. */
export async function verifyStaffChain(table: Table, companyId: string, anchor?: StaffChainHead): Promise<ChainCheck> {
  let previous: StaffChainHead = { seq: 0, hash: GENESIS_HASH };
  /** Hashes of the records checked so far, by hash: a record that links further back shows what was inserted. */
  const seen = new Map<string, number>([[GENESIS_HASH, 0]]);
  let anchorHash: string | undefined;
  const problem = (found: ChainProblem): ChainCheck => ({ whole: false, checked: previous.seq, problem: found });

  for await (const page of queryStaffChainPages(table, companyId)) {
    for (const item of page) {
      const sk = String(item.sk);
      const place = SORT_KEY.exec(sk);
      const expected = previous.seq + 1;
      if (!place) {
        return problem({
          seq: expected,
          kind: 'inserted',
          detail: `an item that is no record of the chain (sort key ${sk}) stands before record ${expected}`,
        });
      }
      const seq = Number(place[1]);
      if (seq > expected) {
        return problem({ seq: expected, kind: 'removed', detail: `record ${expected} is missing: the next one stored is ${seq}` });
      }
      if (item.seq !== seq || recordHashOf(item) !== item.record_hash) {
        return problem({ seq, kind: 'changed', detail: `record ${seq} was changed: it no longer hashes to its record_hash` });
      }
      if (item.prev_hash !== previous.hash) {
        const linked = seen.get(String(item.prev_hash));
        if (linked !== undefined) {
          return problem({
            seq: linked + 1,
            kind: 'inserted',
            detail: `record ${seq} follows record ${linked}: record ${linked + 1}${linked + 1 < seq - 1 ? ` to ${seq - 1}` : ''} was inserted`,
          });
        }
        return problem({
          seq: previous.seq,
          kind: 'changed',
          detail: `record ${previous.seq} was changed (its hash recomputed) or put in place of another: record ${seq} holds another hash for it`,
        });
      }
      previous = { seq, hash: String(item.record_hash) };
      seen.set(previous.hash, seq);
      if (anchor && seq === anchor.seq) anchorHash = previous.hash;
    }
  }

  const head = await getStaffChainHead(table, companyId, GENESIS_HASH);
  if (head.seq > previous.seq) {
    return problem({
      seq: previous.seq + 1,
      kind: 'removed',
      detail: `the head names record ${head.seq}, the chain ends at ${previous.seq}: record ${previous.seq + 1}${head.seq > previous.seq + 1 ? ` to ${head.seq}` : ''} removed`,
    });
  }
  if (head.seq < previous.seq) {
    return problem({
      seq: head.seq + 1,
      kind: 'inserted',
      detail: `the head names record ${head.seq}: record ${head.seq + 1}${previous.seq > head.seq + 1 ? ` to ${previous.seq}` : ''} was added without it`,
    });
  }
  if (head.hash !== previous.hash) {
    return problem({ seq: previous.seq, kind: 'changed', detail: `record ${previous.seq} differs from the hash the head holds for it` });
  }
  if (anchor) {
    if (anchor.seq > previous.seq) {
      return problem({
        seq: previous.seq + 1,
        kind: 'anchor',
        detail: `the chain ends at record ${previous.seq}, before the anchor's ${anchor.seq}: its end was cut`,
      });
    }
    if (anchorHash !== anchor.hash) {
      return problem({
        seq: anchor.seq,
        kind: 'anchor',
        detail: `record ${anchor.seq} does not hash as the anchor says: the chain was rewritten up to it (or the anchor is not this company's)`,
      });
    }
  }
  return { whole: true, checked: previous.seq, head: previous };
}
