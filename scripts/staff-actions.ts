// npm run staff:actions -- --company ID [--user USER_ID] [--actor EMPLOYEE_ID] [--days N]
// The back office's record (API contract 3.14): every search, view and action, who did it, on
// whom, when and why, oldest first, one JSON object a line. With --user, every action on that user
// (kept in their partition); otherwise the company's record of the last --days UTC days (default
// 30, at most 400): its staff chain, with each record's seq and hash, and the daily logs kept
// before the chain (round 6). --actor keeps one employee's. Same configuration as company:create.
// `npm run staff:verify` checks the chain.
import { parseArgs } from 'node:util';
import { HEX_ID_PATTERN } from '../lib/ids.js';
import {
  type ChainedStaffRecord,
  queryStaffActionsOnUser,
  queryStaffChainSince,
  queryStaffLogOfDay,
  type StaffActionRecord,
} from '../lib/store/staff-store.js';
import { type OperatorIo, operatorApp, runIfMain } from './operator-app.js';

const USAGE =
  'usage: npm run staff:actions -- --company <company id> [--user <user id>] [--actor <employee id or operator>] [--days <1-400>] (ids of 32 hex characters)';
const DAY_MS = 24 * 3600 * 1000;
const MAX_DAYS = 400;

interface Options {
  companyId: string;
  userId: string | undefined;
  actorId: string | undefined;
  days: number;
}

function options(argv: string[]): Options | undefined {
  let values: { company?: string | undefined; user?: string | undefined; actor?: string | undefined; days?: string | undefined };
  try {
    values = parseArgs({
      args: argv,
      options: { company: { type: 'string' }, user: { type: 'string' }, actor: { type: 'string' }, days: { type: 'string' } },
    }).values;
  } catch {
    return undefined;
  }
  const companyId = values.company?.trim().toLowerCase() ?? '';
  const userId = values.user?.trim().toLowerCase();
  const actorId = values.actor?.trim().toLowerCase();
  const days = values.days === undefined ? 30 : Number(values.days.trim());
  if (!HEX_ID_PATTERN.test(companyId) || (userId !== undefined && !HEX_ID_PATTERN.test(userId))) return undefined;
  if (actorId !== undefined && actorId !== 'operator' && !HEX_ID_PATTERN.test(actorId)) return undefined;
  if (!Number.isSafeInteger(days) || days < 1 || days > MAX_DAYS) return undefined;
  return { companyId, userId, actorId, days };
}

/** One printed line: the record as kept, with its time also as an ISO date for the reader. */
function lineOf(record: StaffActionRecord & Partial<ChainedStaffRecord>): string {
  const { action_id, at_ms, actor_id, action, user_id, reason, details, seq, record_hash } = record;
  return JSON.stringify({
    at: new Date(at_ms).toISOString(),
    at_ms,
    actor_id,
    action,
    user_id: user_id ?? null,
    reason,
    ...(details ? { details } : {}),
    action_id,
    // A record from before the chain has neither.
    seq: seq ?? null,
    record_hash: record_hash ?? null,
  });
}

export async function main(argv: string[], io: OperatorIo): Promise<number> {
  const chosen = options(argv);
  if (!chosen) {
    io.err(USAGE);
    return 2;
  }
  const app = operatorApp(io);
  try {
    let records: StaffActionRecord[];
    if (chosen.userId) {
      records = await queryStaffActionsOnUser(app.table, chosen.companyId, chosen.userId);
    } else {
      const now = app.clock.now();
      const days = Array.from({ length: chosen.days }, (_, back) => new Date(now - back * DAY_MS).toISOString().slice(0, 10));
      const since = Date.parse(`${days.at(-1)}T00:00:00Z`);
      const [legacy, chained] = await Promise.all([
        Promise.all(days.reverse().map((day) => queryStaffLogOfDay(app.table, chosen.companyId, day))),
        queryStaffChainSince(app.table, chosen.companyId, since),
      ]);
      records = [...legacy.flat(), ...chained];
    }
    const shown = records.filter((record) => chosen.actorId === undefined || record.actor_id === chosen.actorId);
    for (const record of shown) io.out(lineOf(record));
    io.err(`${shown.length} record(s)`);
    return 0;
  } catch (error) {
    io.err(`could not read the back office's record: ${(error as Error).message}`);
    return 1;
  }
}

await runIfMain(import.meta.url, main);
