// npm run events:list -- --company ID [--user USER_ID] [--since UNIX_MS]
// The events npm start delivered to its local sink (.data/events.jsonl; EVENTS_FILE names
// another), as a subscriber sees them: those of one company (and user), occurred at or after
// --since, each event_id once (the bus delivers at least once), oldest first, one JSON object a line.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { HEX_ID_PATTERN } from '../lib/ids.js';
import { type OperatorIo, runIfMain } from './operator-app.js';

const USAGE =
  'usage: npm run events:list -- --company <company id> [--user <user id>] [--since <unix ms>] (ids of 32 hex characters; since a whole number)';

interface ListedEvent {
  detail: { event_id?: unknown; company_id?: unknown; user_id?: unknown; occurred_at?: unknown };
}

function options(argv: string[]): { companyId: string; userId: string | undefined; since: number } | undefined {
  let values: { company?: string | undefined; user?: string | undefined; since?: string | undefined };
  try {
    values = parseArgs({
      args: argv,
      options: { company: { type: 'string' }, user: { type: 'string' }, since: { type: 'string' } },
    }).values;
  } catch {
    return undefined;
  }
  const companyId = values.company?.trim().toLowerCase() ?? '';
  const userId = values.user?.trim().toLowerCase();
  const since = values.since === undefined ? 0 : Number(values.since.trim());
  if (!HEX_ID_PATTERN.test(companyId) || (userId !== undefined && !HEX_ID_PATTERN.test(userId))) return undefined;
  if (values.since?.trim() === '' || !Number.isSafeInteger(since) || since < 0) return undefined;
  return { companyId, userId, since };
}

export async function main(argv: string[], io: OperatorIo): Promise<number> {
  const chosen = options(argv);
  if (!chosen) {
    io.err(USAGE);
    return 2;
  }
  const file = io.env.EVENTS_FILE || resolve(import.meta.dirname, '..', '.data', 'events.jsonl');
  if (!existsSync(file)) {
    io.err(`no events yet: ${file} does not exist (npm start writes it)`);
    return 0;
  }
  const seen = new Set<unknown>();
  const events: ListedEvent[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    let event: ListedEvent;
    try {
      event = JSON.parse(line) as ListedEvent;
    } catch {
      // An empty line, or one still being written.
      continue;
    }
    const { detail } = event ?? {};
    if (!detail || detail.company_id !== chosen.companyId) continue;
    if (chosen.userId !== undefined && detail.user_id !== chosen.userId) continue;
    if (typeof detail.occurred_at !== 'number' || detail.occurred_at < chosen.since) continue;
    // A repeated delivery of the same change: a subscriber acts on its event_id once.
    if (seen.has(detail.event_id)) continue;
    seen.add(detail.event_id);
    events.push(event);
  }
  // Stable: events of the same millisecond keep the order they were delivered in.
  events.sort((a, b) => (a.detail.occurred_at as number) - (b.detail.occurred_at as number));
  for (const event of events) io.out(JSON.stringify(event));
  return 0;
}

await runIfMain(import.meta.url, main);
