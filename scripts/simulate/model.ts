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

  // 3. SMS: a sending number's own rate. The queue (issue 24 step 3) is not built: unchanged.
  const numbers = 1;
  const sms: Model = {
    item: 'SMS sending pool',
    limit: `${LIMITS.smsPartsPerSecondPerNumber} parts/s a number (short code)`,
    before: {
      saturatesAt: numbers * LIMITS.smsPartsPerSecondPerNumber,
      atPeak: `${sends.toLocaleString('en-US')} sends/s need ${Math.ceil(sends / LIMITS.smsPartsPerSecondPerNumber)} short codes`,
    },
    after: { saturatesAt: numbers * LIMITS.smsPartsPerSecondPerNumber, atPeak: 'unchanged: the send queue is not built' },
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
