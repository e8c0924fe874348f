import { randomInt, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createCompany, updateCompanySettings } from '../../../lib/companies/companies.js';
import { readConfig } from '../../../lib/config.js';
import type { HashCost } from '../../../lib/secrets/hashing.js';
import { AdjustableClock } from '../adjustable-clock.js';
import { createOwnTable, localClient } from '../dynamodb-local.js';
import { localEnvironment } from '../environment.js';
import { SHARED_FAULTS, startFaultProxy } from '../fault-proxy.js';
import { type InProcessService, inProcessService } from '../in-process-service.js';
import { startFakeSns } from '../sns-fake.js';
import { scanItems } from '../table-snapshot.js';
import { accountChanges } from './account-changes.js';
import { checkAccounts, checkTable } from './after-run-checks.js';
import { chaosContext, sleep } from './context.js';
import { accountDeletions } from './deletions.js';
import { deviceRemovals } from './device-removals.js';
import { disables } from './disables.js';
import { checkEvents, startFaultedBus, startPublisher } from './events.js';
import { everydayRequests } from './everyday-requests.js';
import { hostileRequests } from './hostile-requests.js';
import { loginPins } from './login-pins.js';
import { oneAccountRace } from './one-account-race.js';
import { CHAOS_ORIGIN, CHAOS_RP_ID, passkeyRaces } from './passkey-races.js';
import { pendingChanges, raceTools } from './pending-changes.js';
import { chaosStaff, phoneRecoveries } from './phone-recoveries.js';
import { registrations } from './registrations.js';
import { type ChaosReport, emptyReport, flowRequests } from './report.js';
import { simSwapRaces } from './sim-swap-races.js';
import { staffCheck, staffCompanies, staffRaces } from './staff-races.js';

export type { ChaosReport };

// Real flows under faults (issue 23): concurrent clients register (some referred, some twice,
// half with a device), send and verify codes, log in by PIN, list referrals, mark notifications
// read, log out, change their names and email (some racing for one email, some asking for an
// email another user holds), move to a new phone number (an OTP login, then a proof of the new
// number verified with that token; some racing for one number), are disabled by an operator (a few),
// remove their device, lock their login PIN with wrong PINs, ask for their account's deletion on a
// fresh OTP login (a few each), race on one account (issue 37: its deletion or disable, its move to
// a new number, a new email and OTP logins to the number it leaves, all at once), and send hostile
// requests for a bounded time while a share of DynamoDB and SNS requests fail in every way the
// local tools can make. Then faults off, and a check of everything answered: each ambiguous
// request retried with its Idempotency-Key must come back with a definite first outcome, and the
// table must hold no partial user, no phone twice, exact referral and unread counts, and every
// live token must work; every phone and email claim held by the user whose record has it and who
// holds claims (active, or disabled with the claim marked so), and every user's claimed; no live
// session of a user who is not active, nor one begun by an OTP login to a number its user has
// left but the one that moved it (tests/harness/session-check.ts).
// Around a pending phone change (issue 39): a user's own pending change races its cancel and its
// completing login, a due change's completion races the user's deletion, and an assisted recovery
// (support starts it, an admin approves it) races the user's PIN logins on the device it removes;
// then no pending change, index item or recovered user is left half-done (tests/harness/phone-change-check.ts).
// A SIM swapper against the owner (issue 47): held changes of an OTP session racing the owner's
// cancel, not_me and PIN login on the settled device; then no change, PIN, device or session of the
// swapper's left half-done (sim-swap-races.ts).
// Meanwhile the table's stream feeds the events' publisher under faults of its own (events.ts).
// Each flow is a module of this folder, built from what they share (context.ts); this file only
// sets up, runs the flows, retries what they left, and checks.

export interface ChaosOptions {
  dynamodbEndpoint: string;
  seconds: number;
  /** Share (0-1) of DynamoDB and SNS requests that get a fault. */
  faults: number;
  clients: number;
  log?: (line: string) => void;
  /** The service's hash cost: production's unless given (the test's short run hands in a cheap one). */
  hashCost?: HashCost;
  /**
   * Races on one account to start at least (a client turns to one while fewer have started and an
   * account is free for one), beyond those drawn as one flow among the others: a short run has few.
   */
  races?: number;
  /** Races around pending phone changes to start at least, of each kind (a cancel, a deletion, a recovery), as `races`. */
  pendingRaces?: number;
  /** Races of a SIM swapper against the account's owner (sim-swap-races.ts) to start at least, as `races`. */
  swapRaces?: number;
  /** Races in the back office, each in a company of its own (staff-races.ts), run at the start beside the clients: 4 (one of each kind) unless told. */
  staffRaces?: number;
  /** Races of a passkey's logins against its removal (passkey-races.ts) to start at least, as `races`. */
  passkeyRaces?: number;
  /** Settings of the service under test beyond the run's own (lib/settings.ts names): npm run chaos -- --set NAME=VALUE. */
  settings?: Record<string, string>;
}

/** The most a slowed container's DynamoDB call waits before it is sent (ms). */
const SLOW_CALL_MS = 40;
/** Registrations each client may make after the run's end for races asked for that found no free account. */
const LATE_REGISTRATIONS = 5;

/** A container whose every DynamoDB call waits up to SLOW_CALL_MS first. */
function slowed(container: InProcessService): InProcessService {
  container.app.table.client.middlewareStack.add((next) => async (args) => {
    await sleep(randomInt(0, SLOW_CALL_MS + 1));
    return next(args);
  });
  return container;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => undefined);
  const report = emptyReport();
  let faultsOn = true;
  const proxy = await startFaultProxy(options.dynamodbEndpoint);
  const sns = await startFakeSns();
  const tableName = await createOwnTable(options.dynamodbEndpoint, 'wallet-auth-chaos');
  const busName = 'wallet-auth-chaos';
  const bus = await startFaultedBus(busName, options.faults, () => faultsOn, report);
  const config = readConfig(
    localEnvironment({
      stage: 'chaos',
      tableName,
      dynamodbEndpoint: proxy.endpoint,
      outboxFile: join(tmpdir(), `chaos-outbox-${randomUUID()}.jsonl`),
      logLevel: process.env.CHAOS_LOG_LEVEL ?? 'SILENT',
      settings: {
        SMS_SENDER: 'sns',
        SNS_ENDPOINT: sns.endpoint,
        COMPANY_CACHE_SECONDS: '0',
        OTP_SENDS_PER_ADDRESS_PER_HOUR: '0',
        OTP_VERIFIES_PER_ADDRESS: '0',
        OTP_SENDS_PER_PREFIX_PER_HOUR: '0',
        OTP_SENDS_PER_COMPANY_PER_HOUR: '100000',
        SMS_DECOY_PRIOR_MEDIAN_MS: '2',
        SMS_DECOY_PRIOR_P90_MS: '5',
        EVENT_BUS_NAME: busName,
        EVENTBRIDGE_ENDPOINT: bus.endpoint,
        EVENTS_DLQ_URL: bus.queueUrl,
        // Two puts of an entry before its dead letter: some entries reach the queue under faults.
        EVENTS_MAX_ATTEMPTS: '2',
        // A pending phone change or recovery is due at once, so a run completes some (a local-only
        // value: a deployed stage holds at least 24 hours, lib/settings.ts).
        PHONE_CHANGE_HOLD_HOURS: '0',
        // The run's admins, made at its start, approve at once (a local-only value: a deployed stage
        // waits at least 72 hours, lib/settings.ts). Their strong sessions, renewed by a PIN login at
        // half an access token's life (450 s), stay within STEP_UP_MAX_AGE_SECONDS (600 s) to approve.
        ADMIN_APPROVER_MIN_HOURS: '0',
        ...options.settings,
      },
    }),
  );
  const service = inProcessService(config, { hashCost: options.hashCost });
  const direct = DynamoDBDocumentClient.from(localClient(options.dynamodbEndpoint));
  const company = await createCompany(service.app.table, service.clock, `chaos ${randomInt(1e9)}`);
  // Passkeys (contract 3.16) for the passkey races: the company's relying party.
  await updateCompanySettings(service.app.table, service.clock, company.company_id, {
    webauthn: { rp_id: CHAOS_RP_ID, origins: [CHAOS_ORIGIN] },
  });
  // Racers for one new number each need a code sent to it, and a phone gets one code per interval:
  // the second and third racer's codes go through containers of the same deployment whose clocks
  // run one and two intervals ahead (proofs and tokens live far longer than that); the logins to a
  // number being left (a race on one account) through those one, two and three intervals ahead.
  // Their DynamoDB calls, and those of one more container on the service's clock, each wait a few
  // ms first (a busier container): a race's requests then interleave inside each other's reads
  // and writes, not only one after another.
  const interval = config.otp.sendIntervalSeconds + 1;
  const ahead: InProcessService[] = [1, 2, 3].map((step) => {
    const clock = new AdjustableClock();
    clock.advance(step * interval);
    return slowed(inProcessService(config, { hashCost: options.hashCost, clock }));
  });
  const slow = slowed(inProcessService(config, { hashCost: options.hashCost, clock: service.clock }));

  // The back office's support employee and admin, made and logged in before the faults are on.
  const staff = await chaosStaff(service, company);
  // And the companies of the staff races, each with two admins (three for the grant's race) and a support employee.
  const staffRacing = await staffCompanies(service, options.staffRaces ?? 4);

  proxy.lateMs = config.dynamodbTimeoutMs + 300;
  proxy.rule = () => {
    if (!faultsOn || Math.random() >= options.faults) return 'pass';
    const mode = SHARED_FAULTS[randomInt(SHARED_FAULTS.length)]!;
    report.faultsByKind[mode] = (report.faultsByKind[mode] ?? 0) + 1;
    return mode;
  };
  const poller = await startPublisher({ endpoint: options.dynamodbEndpoint, tableName, service }, report, log);
  sns.dropAnswer = () => {
    const drop = faultsOn && Math.random() < options.faults;
    if (drop) report.smsAnswersDropped++;
    return drop;
  };

  const endAt = Date.now() + options.seconds * 1000;
  const context = chaosContext({ config, companyId: company.company_id, service, ahead, slow, interval, sns, report, endAt, log });
  const registering = registrations(context);
  const everyday = everydayRequests(context);
  const hostile = hostileRequests(context);
  const pins = loginPins(context);
  const changes = accountChanges(context);
  const disabling = disables(context);
  const deleting = accountDeletions(context);
  const removing = deviceRemovals(context);
  const raceOnOneAccount = oneAccountRace(context, { atLeast: options.races ?? 0 });
  const tools = raceTools(context);
  const aroundPending = pendingChanges(context, tools, { atLeast: options.pendingRaces ?? 0 });
  const recoveries = phoneRecoveries(context, tools, staff, { atLeast: options.pendingRaces ?? 0 });
  const backOffice = staffRaces(context, staffRacing);
  const swaps = simSwapRaces(context, tools, { atLeast: options.swapRaces ?? 0 });
  const passkeyRacing = passkeyRaces(context, { atLeast: options.passkeyRaces ?? 0 });

  // A phone change needs five requests to go through (two codes sent and verified, then the change),
  // and a race on one account as many before it starts: each twice the weight.
  const flows = [
    registering.register,
    registering.register,
    everyday.sendAndVerify,
    everyday.listAndLogout,
    pins.pinLogin,
    everyday.readAll,
    hostile.hostile,
    changes.updateProfile,
    changes.emailRace,
    changes.phoneChange,
    changes.phoneChange,
    disabling.disable,
    deleting.deleteAccount,
    removing.removeDevice,
    pins.lockPin,
    raceOnOneAccount.flow,
    raceOnOneAccount.flow,
    aroundPending.cancelRace,
    aroundPending.deletionRace,
    recoveries.flow,
    passkeyRacing.flow,
  ];
  /** A race around a pending change asked for and not started yet, with an account free for it. */
  const pendingWanted = () => recoveries.wanted() ?? aroundPending.wanted();
  /** A SIM swap race asked for, once the races on one account asked for have begun: each takes an account for good. */
  const swapWanted = () => (report.race.attempts >= (options.races ?? 0) ? (swaps.wanted() ?? passkeyRacing.wanted()) : undefined);
  // The staff races, each in its own company, start at once beside the clients' flows (they need no account of the run's).
  const staffRun = Promise.all(
    staffRacing.map(() => backOffice.flow().catch((error) => context.wrong(`a staff race threw: ${(error as Error).message}`))),
  );
  await Promise.all(
    Array.from({ length: options.clients }, async () => {
      while (Date.now() < endAt) {
        try {
          // The races asked for come first, once there is an account for one.
          const wanted = raceOnOneAccount.wanted() ? raceOnOneAccount.flow : (pendingWanted() ?? swapWanted());
          const flow = wanted ?? flows[randomInt(flows.length)]!;
          const [startedAt, sent] = [performance.now(), { requests: 0 }];
          await flowRequests.run(sent, flow).finally(() => {
            const name = flow.name || 'unnamed';
            report.byFlow[name] ??= { runs: 0, ms: 0, requests: 0 };
            const spent = report.byFlow[name];
            spent.runs++;
            spent.ms += Math.round(performance.now() - startedAt);
            spent.requests += sent.requests;
          });
        } catch (error) {
          context.wrong(`a flow threw: ${(error as Error).message}`);
        }
      }
      // Races asked for that found no free account in time (a short run has few) start as a client is
      // done, faults still on, while the others finish theirs; one still without an account (each race
      // takes its accounts for good) registers one for itself, a few times at most.
      const lateWanted = () => pendingWanted() ?? swaps.wanted() ?? passkeyRacing.wanted();
      const lateAsked = () => aroundPending.asked() !== undefined || recoveries.asked() || swaps.asked() || passkeyRacing.asked();
      for (let registeredForRaces = 0; lateAsked() && registeredForRaces <= LATE_REGISTRATIONS; registeredForRaces++) {
        for (let wanted = lateWanted(); wanted; wanted = lateWanted()) {
          await wanted().catch((error) => context.wrong(`a flow threw: ${(error as Error).message}`));
        }
        if (lateAsked() && registeredForRaces < LATE_REGISTRATIONS) {
          await registering.register().catch((error) => context.wrong(`a flow threw: ${(error as Error).message}`));
        }
      }
    }),
  );

  await staffRun;
  // Faults off: every ambiguous request, retried with its key, has a definite first outcome.
  faultsOn = false;
  // Work cut off by its deadline or held in flight ends first.
  await sleep(config.dynamodbTimeoutMs + 500);
  await registering.afterFaults();
  await changes.afterFaults();
  await raceOnOneAccount.afterFaults();
  await tools.afterFaults();
  await aroundPending.afterFaults();
  await disabling.afterFaults();
  await deleting.afterFaults();
  await removing.afterFaults();
  await pins.afterFaults();
  await backOffice.afterFaults();
  await passkeyRacing.afterFaults();

  const items = await scanItems(direct, tableName, company.company_id);
  const users = checkTable(context, items);
  deleting.check(users);
  removing.check(items);
  swaps.check(items);
  passkeyRacing.check(items);
  await checkAccounts(context, items, users);
  // Every company the run made keeps an active admin, counts its active admins right, and has its staff chain whole.
  for (const [companyId, companyItems] of [
    [company.company_id, items] as const,
    ...(await Promise.all(
      staffRacing.map(async ({ company: raced }) => [raced.company_id, await scanItems(direct, tableName, raced.company_id)] as const),
    )),
  ]) {
    report.staff.companies++;
    for (const problem of await staffCheck(context, companyId, companyItems)) {
      report.staff.problems++;
      context.wrong(`back office: ${problem}`);
    }
  }
  await checkEvents(context, {
    poller,
    bus,
    direct,
    tableName,
    otherCompanies: new Set(staffRacing.map(({ company: raced }) => raced.company_id)),
  });

  await Promise.all([proxy.close(), sns.close(), bus.close()]);
  direct.destroy();
  for (const each of [service, slow, ...ahead]) each.app.table.client.destroy();
  return report;
}
