import type { FunctionName } from '../../lib/api/endpoints.js';
import type { LambdaHttpHandler } from '../../lib/http/api-handler.js';
import { type EventInput, httpEvent, lambdaContext } from '../../tests/harness/in-process-service.js';
import { MINIMUM_ROUND_TRIPS, type Minimum } from './minimum-round-trips.js';
import type { CallUsage, RoundTripCounter } from './round-trips.js';
import { mean, percentile, round } from './stats.js';

// Runs one endpoint outcome many times in this process, one call at a time, and keeps each
// call's latency, CPU time and DynamoDB usage.

export type Handler = LambdaHttpHandler;

export interface ScenarioResult {
  /** The endpoint's name: its operationId and its function's key in serverless.yml. */
  endpoint: FunctionName;
  outcome: string;
  calls: number;
  /** "injected" when the bench ran scrypt at its bench-only cost, "real" otherwise; "none" when the call hashes nothing. */
  hashing: 'injected' | 'real' | 'none';
  smsPerCall: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  meanCpuMs: number;
  /** Mean of max(0, wall - CPU): time spent waiting on DynamoDB and the file system. */
  meanWaitMs: number;
  requests: Record<string, number>;
  sequential: Record<string, number>;
  operations: string;
  readUnits: number;
  writeUnits: number;
  estimatedFailedWriteUnits: number;
  minimum: Minimum;
  matchesMinimum: boolean;
}

export interface Answer {
  status: number;
  body: { success: number; error: number[]; data: Record<string, any> };
}

function histogram(values: number[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

export interface ScenarioSpec {
  endpoint: FunctionName;
  outcome: string;
  handler: Handler;
  calls: number;
  hashing?: ScenarioResult['hashing'];
  smsPerCall?: number;
  expectStatus: number;
  event: (index: number) => EventInput;
  /** Sees each answer, e.g. to keep a token or a cursor for a later scenario. */
  onAnswer?: (index: number, answer: Answer) => void;
}

export async function runScenario(spec: ScenarioSpec, counter: RoundTripCounter): Promise<ScenarioResult> {
  const minimum = MINIMUM_ROUND_TRIPS[spec.endpoint]?.[spec.outcome];
  if (!minimum) throw new Error(`no documented minimum for ${spec.endpoint} / ${spec.outcome}`);
  const latencies: number[] = [];
  const cpu: number[] = [];
  const usages: CallUsage[] = [];
  for (let index = 0; index < spec.calls; index++) {
    const event = httpEvent(spec.event(index));
    counter.take();
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    const result = await spec.handler(event, lambdaContext());
    latencies.push(performance.now() - start);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1000);
    usages.push(counter.take());
    const answer: Answer = { status: result.statusCode ?? 0, body: JSON.parse(result.body ?? 'null') };
    if (answer.status !== spec.expectStatus) {
      throw new Error(
        `${spec.endpoint} / ${spec.outcome}: call ${index} answered ${answer.status}, expected ${spec.expectStatus}: ${result.body}`,
      );
    }
    spec.onAnswer?.(index, answer);
  }
  const requests = usages.map((usage) => usage.requests);
  const sequential = usages.map((usage) => usage.sequential);
  return {
    endpoint: spec.endpoint,
    outcome: spec.outcome,
    calls: spec.calls,
    hashing: spec.hashing ?? 'none',
    smsPerCall: spec.smsPerCall ?? 0,
    p50Ms: round(percentile(latencies, 0.5)),
    p99Ms: round(percentile(latencies, 0.99)),
    meanMs: round(mean(latencies)),
    meanCpuMs: round(mean(cpu)),
    meanWaitMs: round(mean(latencies.map((ms, index) => Math.max(0, ms - cpu[index]!)))),
    requests: histogram(requests),
    sequential: histogram(sequential),
    operations: [...new Set(usages.map((usage) => usage.operations.join(' ')))].join(' / '),
    readUnits: round(mean(usages.map((usage) => usage.readUnits)), 3),
    writeUnits: round(mean(usages.map((usage) => usage.writeUnits)), 3),
    estimatedFailedWriteUnits: round(mean(usages.map((usage) => usage.estimatedFailedWriteUnits)), 3),
    minimum,
    // Sequential steps at most: a read started early (the staff chain's head) overlaps a later step or not by timing.
    matchesMinimum: requests.every((count) => count === minimum.requests) && sequential.every((count) => count <= minimum.sequential),
  };
}
