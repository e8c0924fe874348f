// The model behind npm run simulate (docs/scaling.md): arrivals drawn from a seeded generator and
// replayed against the limits that bind first. Each figure is an estimate from published limits
// and the code's own request pattern; docs/scaling.md says where each number comes from.

export const SCENARIO = {
  loginsPerSecond: 5000,
  registrationsPerSecond: 500,
  referralsPerHour: 100_000,
  companies: 200,
};

export const LIMITS = {
  /** Writes a second one item (and one partition) takes: 1,000 WCU of items up to 1 KB. */
  itemWritesPerSecond: 1000,
  /** WCU a transactional write of a small item costs (two, the prepare and the commit). */
  transactionalWcu: 2,
  /** How long a TransactWriteItems holds its items, in ms (an estimate: 10 to 30 ms from Lambda). */
  transactionWindowMs: 20,
  /** Shards after issue 24 (OTP_COMPANY_SEND_SHARDS, REFERRAL_COUNT_SHARDS). */
  companySendShards: 10,
  referralCountShards: 10,
  /** The company send ceiling before issue 24: one number for every company (OTP_SENDS_PER_COMPANY_PER_HOUR). */
  defaultSendsPerHour: 1000,
  /** SSM GetParameter a second per account and region (standard throughput). */
  ssmReadsPerSecond: 40,
  /** New containers a second per function in a ramp or a redeploy (an estimate). */
  containerStartsPerSecond: 100,
  /** Functions that read the secret. */
  secretFunctions: 4,
  /** Requests a second one container serves (about 100 ms each). */
  requestsPerContainerSecond: 10,
  /** A sending number's own rate: a US short code (toll-free 3, 10DLC 1). */
  smsPartsPerSecondPerNumber: 100,
  /** Short codes in the scenario's pool: 50 x 100 = 5,000 parts a second, the peak's own rate. */
  scenarioShortCodes: 50,
  /** How long a login_phone waits on a throttled SNS before its 503: 2 attempts of 2 s (SMS_TIMEOUT_MS, SMS_MAX_ATTEMPTS). */
  smsHeldSeconds: 4,
  /** A code's life (OTP_TTL_SECONDS): a text still queued after it is dropped. */
  codeTtlSeconds: 300,
  /** The length of a peak, for the queue's backlog. */
  peakSeconds: 600,
};

export interface Figures {
  /** The arrival rate (a second) at which the item saturates. */
  saturatesAt: number;
  /** What the item sees at the scenario's peak, in words. */
  atPeak: string;
}

export interface Model {
  item: string;
  limit: string;
  before: Figures;
  after: Figures;
}

/** mulberry32: a small seeded generator, so a run's figures repeat. */
export function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** Arrival times (seconds) of a Poisson process at `rate` a second over `seconds`. */
function arrivals(random: () => number, rate: number, seconds: number): number[] {
  const times: number[] = [];
  for (let time = -Math.log(1 - random()) / rate; time < seconds; time += -Math.log(1 - random()) / rate) times.push(time);
  return times;
}

/** The lowest rate in [low, high] at which `saturated` holds (bisection to 1 a second). */
function threshold(low: number, high: number, saturated: (rate: number) => boolean): number {
  if (!saturated(high)) return Number.POSITIVE_INFINITY;
  while (high - low > 1) {
    const middle = (low + high) / 2;
    if (saturated(middle)) high = middle;
    else low = middle;
  }
  return high;
}

/**
 * The writes a second the busiest of `shards` counter items takes when `rate` sends a second each
 * write one random shard (the busiest one-second window of `seconds`).
 */
export function busiestShardWrites(random: () => number, rate: number, shards: number, seconds = 3): number {
  let busiest = 0;
  for (let second = 0; second < seconds; second++) {
    const counts = new Array<number>(shards).fill(0);
    for (const _ of arrivals(random, rate, 1)) counts[Math.floor(random() * shards)]!++;
    busiest = Math.max(busiest, ...counts);
  }
  return busiest;
}

/**
 * The share of transactions cancelled on first attempt (TransactionConflict) when `rate` a second
 * each write one of `items` random items and hold it `windowMs`: a transaction meets a conflict
 * when another on its item is still in flight.
 */
export function conflictShare(random: () => number, rate: number, items: number, windowMs: number, seconds = 30): number {
  const lastStart = new Array<number>(items).fill(Number.NEGATIVE_INFINITY);
  let cancelled = 0;
  const times = arrivals(random, rate, seconds);
  for (const time of times) {
    const item = Math.floor(random() * items);
    if (time - lastStart[item]! < windowMs / 1000) cancelled++;
    lastStart[item] = time;
  }
  return times.length ? cancelled / times.length : 0;
}

/** A Poisson count with mean `mean` (Knuth's method when small, the normal approximation when large). */
function poissonCount(random: () => number, mean: number): number {
  if (mean < 50) {
    let count = 0;
    for (let product = random(); product > Math.exp(-mean); product *= random()) count++;
    return count;
  }
  const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Math.max(0, Math.round(mean + Math.sqrt(mean) * normal));
}

export interface SmsPeak {
  /** Sends answered 503 (SNS throttled them in the request). */
  refusedShare: number;
  /** Invocations held at the busiest second by sends waiting on a throttled SNS. */
  heldInvocations: number;
  /** The longest a text waited in the queue, in seconds. */
  longestWaitSeconds: number;
  /** Texts dropped because their code had expired while queued. */
  expiredShare: number;
}

/**
 * A peak of `rate` one-part sends a second for LIMITS.peakSeconds against a pool that takes
 * `partsPerSecond`. In the request (before): what SNS cannot take that second is throttled, held
 * LIMITS.smsHeldSeconds and answered 503. Queued (after): every send answers at once; the queue
 * is sent at the pool's rate, oldest first, and what waits past a code's life is dropped.
 */
export function smsPeak(random: () => number, rate: number, partsPerSecond: number): SmsPeak {
  let arrived = 0;
  let refused = 0;
  let heldInvocations = 0;
  let expired = 0;
  let longestWaitSeconds = 0;
  /** The queue as [second queued, texts] from the oldest. */
  const queue: [number, number][] = [];
  for (let second = 0; second < LIMITS.peakSeconds || queue.length; second++) {
    const sends = second < LIMITS.peakSeconds ? poissonCount(random, rate) : 0;
    arrived += sends;
    const throttled = Math.max(0, sends - partsPerSecond);
    refused += throttled;
    heldInvocations = Math.max(heldInvocations, throttled * LIMITS.smsHeldSeconds);
    if (sends) queue.push([second, sends]);
    for (let room = partsPerSecond; room > 0 && queue.length; ) {
      const oldest = queue[0]!;
      const wait = second - oldest[0];
      if (wait > LIMITS.codeTtlSeconds) {
        expired += oldest[1];
        queue.shift();
        continue;
      }
      const sent = Math.min(room, oldest[1]);
      longestWaitSeconds = Math.max(longestWaitSeconds, wait);
      oldest[1] -= sent;
      room -= sent;
      if (!oldest[1]) queue.shift();
    }
  }
  return { refusedShare: refused / arrived, heldInvocations, longestWaitSeconds, expiredShare: expired / arrived };
}

/**
 * SSM GetParameter calls a second at the height of a ramp of `starts` containers a second (all
 * functions together) for 10 s, and the seconds until every container holds the secret.
 * `everyRequest`: a container without the secret asks on every request (before); else once per
 * `holdSeconds` (after), each read up to `attempts` calls.
 */
export function secretRamp(starts: number, options: { everyRequest: boolean; attempts: number; holdSeconds: number }) {
  const { ssmReadsPerSecond: capacity, requestsPerContainerSecond: perContainer } = LIMITS;
  let waiting = 0;
  let peakCalls = 0;
  let second = 0;
  for (; second < 600 && (second < 10 || waiting > 0); second++) {
    const started = second < 10 ? starts : 0;
    // Who asks this second: the new containers, and the waiting ones as often as the rule lets them.
    const askers = started + (options.everyRequest ? waiting * perContainer : waiting / options.holdSeconds);
    const calls = askers * (askers > capacity ? options.attempts : 1);
    peakCalls = Math.max(peakCalls, calls);
    // SSM answers `capacity` a second; each answered read is a container served.
    const served = Math.min(capacity, started + waiting);
    waiting = started + waiting - served;
  }
  return { peakCalls, drainedAfter: second };
}

export function simulate(seed: number): Model[] {
  const random = generator(seed);
  const { itemWritesPerSecond: ceiling, transactionWindowMs: window, transactionalWcu } = LIMITS;
  const referralRate = SCENARIO.referralsPerHour / 3600;
  const sends = SCENARIO.loginsPerSecond;

  // 1. The company's hourly send counter: one item before, S shards after.
  const sendSaturation = (shards: number) => threshold(1, 100_000, (rate) => busiestShardWrites(random, rate, shards) >= ceiling);
  const shardedBusiest = busiestShardWrites(random, sends, LIMITS.companySendShards);
  const companyCounter: Model = {
    item: 'company send counter C#<cid>#SENDS',
    limit: '1,000 writes/s an item',
    before: {
      saturatesAt: sendSaturation(1),
      atPeak: `${sends.toLocaleString('en-US')} writes/s on one item; the ${LIMITS.defaultSendsPerHour}/h ceiling trips after ${(LIMITS.defaultSendsPerHour / sends).toFixed(1)} s`,
    },
    after: {
      saturatesAt: sendSaturation(LIMITS.companySendShards),
      atPeak: `busiest of ${LIMITS.companySendShards} shards ${shardedBusiest} writes/s; ceiling per company (--sms-per-hour)`,
    },
  };

  // 2. The referral count: the referrer's item in every referred registration's transaction before,
  // a random one of N shards after. Half of first attempts cancelled is where retries pile up.
  const conflictSaturation = (items: number) => threshold(1, 5000, (rate) => conflictShare(random, rate, items, window) >= 0.5);
  // Every referral also writes its notification to the referrer's partition: the partition's own ceiling.
  const partitionCeiling = ceiling / (2 * transactionalWcu);
  const beforeConflicts = conflictShare(random, referralRate, 1, window);
  const afterConflicts = conflictShare(random, referralRate, LIMITS.referralCountShards, window);
  const referralCount: Model = {
    item: "referrer's count (C#<cid>#USER#<id>)",
    limit: `TransactionConflict (${window} ms window); ${Math.round(partitionCeiling)}/s partition`,
    before: {
      saturatesAt: Math.min(conflictSaturation(1), partitionCeiling),
      atPeak: `${referralRate.toFixed(1)}/s: ${(beforeConflicts * 100).toFixed(0)} % of first attempts cancelled`,
    },
    after: {
      saturatesAt: Math.min(conflictSaturation(LIMITS.referralCountShards), partitionCeiling),
      atPeak: `${(afterConflicts * 100).toFixed(1)} % cancelled; the referrer's own item never written`,
    },
  };

  // 3. SMS: the pool's rate. In the request, what SNS cannot take is a 503 after a held wait; queued,
  // a send answers at once and its text waits its turn, up to its code's life.
  const pool = LIMITS.scenarioShortCodes * LIMITS.smsPartsPerSecondPerNumber;
  const inRequest = smsPeak(random, sends, pool);
  const queued = smsPeak(random, sends, pool);
  const burst = smsPeak(random, 1.2 * pool, pool);
  const sms: Model = {
    item: `SMS sending pool (${LIMITS.scenarioShortCodes} short codes)`,
    limit: `${pool.toLocaleString('en-US')} parts/s (${LIMITS.smsPartsPerSecondPerNumber} a short code)`,
    before: {
      // The first 1 % of sends refused.
      saturatesAt: threshold(pool / 2, 3 * pool, (rate) => smsPeak(random, rate, pool).refusedShare >= 0.01),
      atPeak:
        `${sends.toLocaleString('en-US')} sends/s: ${(inRequest.refusedShare * 100).toFixed(1)} % answered 503 after a ${LIMITS.smsHeldSeconds} s wait, ` +
        `${Math.round(inRequest.heldInvocations).toLocaleString('en-US')} invocations held; at 1.2x the pool ${(smsPeak(random, 1.2 * pool, pool).refusedShare * 100).toFixed(0)} % refused`,
    },
    after: {
      // The first code dropped unsent in a peak of LIMITS.peakSeconds.
      saturatesAt: threshold(pool / 2, 3 * pool, (rate) => smsPeak(random, rate, pool).expiredShare > 0),
      atPeak:
        `every send answered 200; longest wait ${queued.longestWaitSeconds} s; at 1.2x the pool for ${LIMITS.peakSeconds / 60} min ` +
        `the last text waits ${burst.longestWaitSeconds} s, ${(burst.expiredShare * 100).toFixed(0)} % dropped`,
    },
  };

  // 4. The server secret: container starts a second that SSM's reads keep up with, and the storm past it.
  const starts = LIMITS.containerStartsPerSecond * LIMITS.secretFunctions;
  const before = secretRamp(starts, { everyRequest: true, attempts: 2, holdSeconds: 0 });
  const after = secretRamp(starts, { everyRequest: false, attempts: 3, holdSeconds: 5 });
  const secret: Model = {
    item: 'server secret (SSM GetParameter)',
    limit: `${LIMITS.ssmReadsPerSecond} reads/s an account`,
    before: {
      saturatesAt: LIMITS.ssmReadsPerSecond,
      atPeak: `${starts} starts/s for 10 s: ${Math.round(before.peakCalls).toLocaleString('en-US')} calls/s at worst, served after ${before.drainedAfter} s`,
    },
    after: {
      saturatesAt: LIMITS.ssmReadsPerSecond,
      atPeak: `${Math.round(after.peakCalls).toLocaleString('en-US')} calls/s at worst, served after ${after.drainedAfter} s`,
    },
  };
  return [companyCounter, referralCount, sms, secret];
}
