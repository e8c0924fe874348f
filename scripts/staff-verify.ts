// npm run staff:verify -- --company ID [--anchor SEQ:HASH]
// Checks a company's staff record (API contract 3.14, round 6): walks its hash chain from the first
// record and names the first record changed, removed or inserted (exit 1), else prints how many
// records it checked and the head (exit 0), whose seq:hash is the next run's anchor. --anchor is a
// seq and record_hash kept outside the table (an admin.action event's): a chain recomputed by
// someone with write access to the table, or cut at its end, fails against it. The last line of
// stdout is one JSON object. Same configuration as company:create.
import { parseArgs } from 'node:util';
import { HEX_ID_PATTERN } from '../lib/ids.js';
import { verifyStaffChain } from '../lib/staff/staff-chain-verify.js';
import type { StaffChainHead } from '../lib/store/staff-store.js';
import { type OperatorIo, operatorApp, runIfMain } from './operator-app.js';

const USAGE = 'usage: npm run staff:verify -- --company <company id, 32 hex> [--anchor <seq>:<record hash, 64 hex>]';

function options(argv: string[]): { companyId: string; anchor: StaffChainHead | undefined } | undefined {
  let values: { company?: string | undefined; anchor?: string | undefined };
  try {
    values = parseArgs({ args: argv, options: { company: { type: 'string' }, anchor: { type: 'string' } } }).values;
  } catch {
    return undefined;
  }
  const companyId = values.company?.trim().toLowerCase() ?? '';
  if (!HEX_ID_PATTERN.test(companyId)) return undefined;
  if (values.anchor === undefined) return { companyId, anchor: undefined };
  const anchor = /^([1-9][0-9]{0,14}):([0-9a-fA-F]{64})$/.exec(values.anchor.trim());
  if (!anchor) return undefined;
  return { companyId, anchor: { seq: Number(anchor[1]), hash: anchor[2]!.toLowerCase() } };
}

export async function main(argv: string[], io: OperatorIo): Promise<number> {
  const chosen = options(argv);
  if (!chosen) {
    io.err(USAGE);
    return 2;
  }
  const app = operatorApp(io);
  try {
    const check = await verifyStaffChain(app.table, chosen.companyId, chosen.anchor);
    if (!check.whole) {
      const { seq, kind, detail } = check.problem;
      io.err(`the staff record of company ${chosen.companyId} is NOT whole: ${detail}`);
      io.out(JSON.stringify({ whole: false, checked: check.checked, seq, problem: kind, detail }));
      return 1;
    }
    const anchored = chosen.anchor ? `, and record ${chosen.anchor.seq} matches the anchor` : '';
    io.err(`${check.checked} record(s) checked: the staff record of company ${chosen.companyId} is whole${anchored}`);
    io.out(JSON.stringify({ whole: true, checked: check.checked, head: `${check.head.seq}:${check.head.hash}` }));
    return 0;
  } catch (error) {
    io.err(`could not read the staff record: ${(error as Error).message}`);
    return 1;
  }
}

await runIfMain(import.meta.url, main);
