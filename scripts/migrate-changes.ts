// npm run changes:migrate -- [--dry-run]
// Run once after deploying round 6 (docs/deploying.md, "Round 6: pending changes and probation").
// One Scan of the whole table, page by page:
// - each pending phone change of round 5 (sort key PHONECHANGE), still live, moves to the pending
//   change of kind `phone` (CHANGE#phone) with the same change_id, in one transaction: the new item
//   put only while the user has none, the old one deleted only while it is that change. One that is
//   over (cancelled, void, expired), or whose user asked for a new change since the deploy, is left
//   as it is: the new code reads it no more, and its TTL (expires_at) deletes it;
// - each device bound by an OTP login less than CREDENTIAL_PROBATION_HOURS ago, and still without
//   probation, goes on probation from its binding (contract 3.15, "Migration"), both its items in one
//   transaction. Which binding it was, the user's session that began on it at its created_at says.
// Prints {"phone_changes_moved", "phone_changes_left", "devices_on_probation", "devices_settled",
// "scanned", "dry_run"} as its one line of stdout; each item's outcome goes to stderr. --dry-run
// writes nothing and counts what a run would do. Running it again does nothing more; a run that
// stopped half way is finished by the next. Same configuration as the other operator commands.

import { parseArgs } from 'node:util';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { App } from '../lib/app-context.js';
import { epochSeconds } from '../lib/clock.js';
import { deviceProbationFromMigration } from '../lib/store/device-store.js';
import { ROUND_5_PHONE_CHANGE_SORT_KEY, USER_DEVICE_PREFIX } from '../lib/store/keys.js';
import {
  getPendingPhoneChange,
  isLive,
  pendingChangePut,
  phoneChangeOfRound5,
  round5PhoneChangeDelete,
  withKind,
} from '../lib/store/pending-change-store.js';
import { queryDeviceSessionStarts } from '../lib/store/session-store.js';
import { ConditionsFailed, writeTransaction } from '../lib/store/transactions.js';
import { getUser } from '../lib/store/user-store.js';
import { type OperatorIo, operatorApp, runIfMain } from './operator-app.js';

const USAGE = 'usage: npm run changes:migrate -- [--dry-run]';

/** A user's partition key (keys.ts userKey): the company and the user it names. */
const USER_PARTITION = /^C#([^#]+)#USER#([^#]+)$/;

/** A session item's created_at and its device's lie this close (seconds): the binding's transaction reads the clock twice. */
const SAME_TRANSACTION_SECONDS = 2;

export interface MigrationCounts {
  phone_changes_moved: number;
  phone_changes_left: number;
  devices_on_probation: number;
  /** Devices bound in the window that stay settled: bound at registration, or bound by this round's code (which decided itself). */
  devices_settled: number;
  /** Items the Scan read. */
  scanned: number;
  dry_run: boolean;
}

interface Run {
  app: App;
  io: OperatorIo;
  dryRun: boolean;
  now: number;
  counts: MigrationCounts;
}

export async function main(argv: string[], io: OperatorIo): Promise<number> {
  let dryRun: boolean;
  try {
    dryRun =
      parseArgs({
        args: argv,
        options: {
          'dry-run': { type: 'boolean' },
        },
      }).values['dry-run'] === true;
  } catch {
    io.err(USAGE);
    return 2;
  }
  const app = operatorApp(io);
  const now = epochSeconds(app.clock);
  const counts: MigrationCounts = {
    phone_changes_moved: 0,
    phone_changes_left: 0,
    devices_on_probation: 0,
    devices_settled: 0,
    scanned: 0,
    dry_run: dryRun,
  };
  const run: Run = { app, io, dryRun, now, counts };
  // Bound after this are on probation only for the rest of the window: before it, settled by time already.
  const since = now - app.config.credentialProbationHours * 3600;
  try {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await app.table.client.send(
        new ScanCommand({
          TableName: app.table.name,
          ConsistentRead: true,
          ExclusiveStartKey: start,
          // The two kinds of item it moves or marks; every other item is read and passed over by DynamoDB.
          FilterExpression:
            'sk = :phoneChange OR (begins_with(sk, :device) AND created_at > :since AND ' +
            'attribute_not_exists(probation_since) AND attribute_not_exists(probation_migrated_at))',
          ExpressionAttributeValues: { ':phoneChange': ROUND_5_PHONE_CHANGE_SORT_KEY, ':device': USER_DEVICE_PREFIX, ':since': since },
        }),
      );
      counts.scanned += page.ScannedCount ?? 0;
      for (const item of page.Items ?? []) {
        const user = USER_PARTITION.exec(String(item.pk));
        if (!user) continue;
        const [, companyId, userId] = user as unknown as [string, string, string];
        if (item.sk === ROUND_5_PHONE_CHANGE_SORT_KEY) await movePhoneChange(run, companyId, userId, item);
        else await probationIfOtpBound(run, companyId, userId, item);
      }
      start = page.LastEvaluatedKey;
    } while (start);
  } catch (error) {
    io.err(`migration stopped (run it again to finish): ${(error as Error).message}`);
    io.out(JSON.stringify(counts));
    return 1;
  }
  const would = dryRun ? 'would move' : 'moved';
  io.err(
    `${counts.phone_changes_moved} phone change(s) ${would}, ${counts.phone_changes_left} left, ` +
      `${counts.devices_on_probation} device(s) ${dryRun ? 'would go' : 'put'} on probation, ${counts.scanned} item(s) scanned`,
  );
  io.out(JSON.stringify(counts));
  return 0;
}

/** One round-5 pending phone change: moved when live and the user has no change of the kind, else left. */
async function movePhoneChange(run: Run, companyId: string, userId: string, item: Record<string, unknown>): Promise<void> {
  const { app, io, counts, now } = run;
  const changeId = String(item.change_id);
  const about = `phone change ${changeId} of user ${userId} (company ${companyId})`;
  if (!isLive(withKind(item), now)) {
    counts.phone_changes_left++;
    io.err(`${about}: left, over already (${item.ended_reason ?? 'expired'}); its TTL deletes it`);
    return;
  }
  const change = phoneChangeOfRound5(item, now);
  const leftForNewer = () => {
    counts.phone_changes_left++;
    io.err(`${about}: left, the user asked for another change since the deploy (it replaced this one)`);
  };
  if (run.dryRun) {
    if (await getPendingPhoneChange(app.table, companyId, userId, true)) return leftForNewer();
    counts.phone_changes_moved++;
    io.err(`${about}: would move`);
    return;
  }
  try {
    await writeTransaction(app.table, [
      { label: 'new', item: pendingChangePut(app.table, companyId, userId, change, undefined) },
      { label: 'old', item: round5PhoneChangeDelete(app.table, companyId, userId, changeId) },
    ]);
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    if (error.labels.includes('new')) return leftForNewer();
    // Nothing but its TTL writes the old item now: gone since the Scan read it.
    counts.phone_changes_left++;
    io.err(`${about}: left, gone since read`);
    return;
  }
  counts.phone_changes_moved++;
  io.err(`${about}: moved`);
}

/**
 * A device of the window without probation: on probation when an OTP login bound it. A round-5
 * device does not say how it was bound; the session that began on it in the binding's transaction
 * does (its `began`; the sessions of round 6 also have an `acr`: this round's code bound it and
 * decided). With no such session (ended and deleted by its TTL early), a device bound when its user
 * registered is settled and any other is taken for an OTP login's: the only other binding round 5 had.
 */
async function probationIfOtpBound(run: Run, companyId: string, userId: string, item: Record<string, unknown>): Promise<void> {
  const { app, io, counts, now } = run;
  const deviceKey = String(item.device_key);
  const createdAt = Number(item.created_at);
  const about = `device ${deviceKey} of user ${userId} (company ${companyId})`;
  const near = (at: number) => at >= createdAt - SAME_TRANSACTION_SECONDS && at <= createdAt + SAME_TRANSACTION_SECONDS;
  const binding = (await queryDeviceSessionStarts(app.table, companyId, userId, deviceKey))
    .filter((session) => near(session.createdAt))
    .sort((a, b) => a.createdAt - b.createdAt)[0];
  let otp: boolean;
  if (binding) {
    otp = binding.acr === undefined && binding.began === 'otp';
  } else {
    const user = await getUser(app.table, companyId, userId, true);
    otp = user !== undefined && !near(user.created_at);
  }
  if (!otp) {
    counts.devices_settled++;
    io.err(
      `${about}: settled (${binding ? (binding.acr ? 'bound since the deploy' : `bound at ${binding.began}`) : 'bound at registration'})`,
    );
    return;
  }
  if (run.dryRun) {
    counts.devices_on_probation++;
    io.err(`${about}: would go on probation from ${createdAt}`);
    return;
  }
  try {
    await writeTransaction(
      app.table,
      deviceProbationFromMigration(app.table, companyId, userId, { deviceKey, createdAt }, now).map((write) => ({
        label: 'device',
        item: write,
      })),
    );
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    io.err(`${about}: passed over, removed, bound again or on probation since read`);
    return;
  }
  counts.devices_on_probation++;
  io.err(`${about}: on probation from ${createdAt}`);
}

await runIfMain(import.meta.url, main);
