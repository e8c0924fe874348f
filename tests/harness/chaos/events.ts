import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { eventCheck, seenEvents } from '../event-check.js';
import { type FakeEventBridge, startFakeEventBridge } from '../eventbridge-fake.js';
import { type InProcessService, lambdaContext } from '../in-process-service.js';
import { type StreamPoller, startStreamPoller } from '../stream-poller.js';
import { scanItems } from '../table-snapshot.js';
import type { ChaosContext } from './context.js';
import type { ChaosReport } from './report.js';

// The events under faults (issue 31): the table's stream feeds the events' publisher, whose bus (a
// loopback EventBridge) fails a share of its calls, of its entries and of its dead-letter calls.
// After a drain, every change the table proves has its event on the bus or in the dead-letter
// queue, and no event names a change the table does not hold (tests/harness/event-check.ts).

/**
 * The bus, its faults drawn here so they can be counted (in `report.events.faults`): a third of
 * the share fails whole PutEvents calls (throttled, which the SDK retries too), half of it single
 * entries, and twice it (at most 90 %) the dead-letter calls, which are few (whose records then
 * come again from the stream). None while `faultsOn()` is false.
 */
export async function startFaultedBus(busName: string, share: number, faultsOn: () => boolean, report: ChaosReport) {
  const counted = report.events.faults;
  const bus = await startFakeEventBridge({
    busName,
    faults: {
      failEntry: () => {
        if (!faultsOn() || Math.random() >= share / 2) return undefined;
        counted.entries++;
        return Math.random() < 0.5 ? 'ThrottlingException' : 'InternalFailure';
      },
    },
  });
  // Whole calls fail by the fake's "next N calls" knobs, read as getters: the fake reads a knob
  // while it answers a call (its count already up), so each call is decided once, here, and counted.
  const perCall = (calls: () => number, callShare: number, kind: 'calls' | 'deadLetterCalls') => {
    let decidedFor = 0;
    let fail = 0;
    return {
      get: () => {
        if (calls() !== decidedFor) {
          decidedFor = calls();
          fail = faultsOn() && Math.random() < callShare ? 1 : 0;
          counted[kind] += fail;
        }
        return fail;
      },
      set: () => {},
    };
  };
  Object.defineProperty(
    bus.faults,
    'failNextCalls',
    perCall(() => bus.calls.putEvents, share / 3, 'calls'),
  );
  Object.defineProperty(
    bus.faults,
    'failNextDeadLetterCalls',
    perCall(() => bus.calls.deadLetter, Math.min(0.9, share * 2), 'deadLetterCalls'),
  );
  return bus;
}

/** The table's stream handed to the service's publisher, as Lambda would: each batch counted, and those handed again. */
export function startPublisher(
  { endpoint, tableName, service }: { endpoint: string; tableName: string; service: InProcessService },
  report: ChaosReport,
  log: (line: string) => void,
): Promise<StreamPoller> {
  const publish = service.streamed.eventsPublish;
  return startStreamPoller({
    endpoint,
    tableName,
    consumer: async (event) => {
      report.events.batches++;
      try {
        const answer = await publish(event, lambdaContext(30_000));
        if (answer?.batchItemFailures.length) report.events.batchesHandedAgain++;
        return answer;
      } catch (error) {
        report.events.batchesHandedAgain++;
        throw error;
      }
    },
    idleMs: 50,
    retryBaseMs: 20,
    retryMaxMs: 500,
    maxAttempts: 1000,
    onGiveUp: (records) => {
      report.events.givenUp += records.length;
    },
    log,
  });
}

/** Faults off: every record answered, the poller closed, then the table and the events compared. */
export async function checkEvents(
  ctx: ChaosContext,
  {
    poller,
    bus,
    direct,
    tableName,
    otherCompanies = new Set<string>(),
  }: {
    poller: StreamPoller;
    bus: FakeEventBridge;
    direct: DynamoDBDocumentClient;
    tableName: string;
    /** Companies the run made for flows of their own (the staff races'): each checked against its own events. */
    otherCompanies?: Set<string>;
  },
) {
  const { report, wrong } = ctx;
  const draining = Date.now();
  try {
    await poller.drain(120_000);
  } catch (error) {
    wrong(`events: the stream did not drain: ${(error as Error).message}`);
  }
  report.events.drainSeconds = (Date.now() - draining) / 1000;
  await poller.close();
  const finalItems = await scanItems(direct, tableName, ctx.companyId);
  const all = seenEvents(bus);
  const ofCompany = (companyId: string) => all.filter((event) => event.detail.company_id === companyId);
  const events = eventCheck(
    finalItems,
    ctx.companyId,
    all.filter((event) => !otherCompanies.has(String(event.detail.company_id))),
    { profileUpdated: ctx.profileUpdated },
  );
  for (const other of otherCompanies) {
    const checked = eventCheck(await scanItems(direct, tableName, other), other, ofCompany(other));
    for (const problem of checked.problems) events.problems.push(`company ${other}: ${problem}`);
  }
  Object.assign(report.events, {
    putEventsCalls: bus.calls.putEvents,
    deadLetterCalls: bus.calls.deadLetter,
    received: events.received,
    distinct: events.distinct,
    deadLettered: events.deadLettered,
    byType: events.byType,
    proven: events.proven,
    problems: events.problems.length,
  });
  if (report.events.givenUp) wrong(`events: ${report.events.givenUp} stream records were given up`);
  for (const problem of events.problems) wrong(`events: ${problem}`);
}
