import { randomInt } from 'node:crypto';
import type { Timer } from '../clock.js';
import type { Config } from '../config.js';
import type { SendText } from './sms-sender.js';

// A login code for a phone with no account sends nothing, yet its answer must not come sooner
// than a real send's (ASVS 6.3.8): the caller would learn who has an account. Sent directly,
// withholding waits a duration drawn from this container's recent real sends (paddedDispatch);
// through the queue, both queue one sealed message of the same size (lib/sms/sms-queue.ts).

/** A code's text on its way to a phone. */
export interface CodeText {
  companyId: string;
  /** E.164 destination. */
  phoneNumber: string;
  text: string;
  /** ISO 3166 alpha-2 of the destination: its sending pool and its country's pace. */
  country: string;
  /** Epoch seconds after which the code is dead: a text still queued then is dropped, not sent. */
  expiresAt: number;
}

/** How a code's text leaves, or does not, in the same time as the caller sees it. */
export interface TextDispatch {
  /** Sends (or queues) the text. */
  send(code: CodeText): Promise<void>;
  /** Sends nothing, in about the time a send takes: never longer than budgetMs. */
  withhold(code: CodeText, budgetMs: number): Promise<void>;
}

/** Recent sends kept: enough to follow SNS's distribution, recent enough to follow its changes. */
export const SENDS_KEPT = 200;
/** Below this many timed sends a container's own figures say little: the configured prior stands in. */
export const SENDS_BEFORE_USE = 20;

const RANDOM_RANGE = 2 ** 48 - 1; // randomInt's largest
/** A uniform number in [0, 1) that a caller cannot predict from earlier answers. */
const unpredictable = () => randomInt(RANDOM_RANGE) / RANDOM_RANGE;

/** The durations of the last SENDS_KEPT sends, in milliseconds, oldest overwritten first. */
export class SendDurations {
  private readonly kept: number[] = [];
  private next = 0;

  record(ms: number): void {
    this.kept[this.next] = Math.max(0, ms);
    this.next = (this.next + 1) % SENDS_KEPT;
  }

  get count(): number {
    return this.kept.length;
  }

  /** One kept duration, each equally likely; undefined until SENDS_BEFORE_USE are kept. */
  draw(random: () => number): number | undefined {
    if (this.kept.length < SENDS_BEFORE_USE) return undefined;
    return this.kept[Math.floor(random() * this.kept.length)];
  }
}

type DecoySettings = Config['sms']['decoy'];

/** A log-normal duration with the prior's median and 90th percentile (Box-Muller). */
function priorDuration({ priorMedianMs, priorP90Ms }: DecoySettings, random: () => number): number {
  const sigma = Math.log(priorP90Ms / priorMedianMs) / 1.2816; // z of the 90th percentile
  const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return priorMedianMs * Math.exp(sigma * normal);
}

/** Sends through `sms`, timing each send; withholds by waiting as long as a timed send took. */
export function paddedDispatch(sms: SendText, timer: Timer, settings: DecoySettings, random: () => number = unpredictable): TextDispatch {
  const durations = new SendDurations();
  return {
    async send({ phoneNumber, text }) {
      const started = timer.now();
      try {
        await sms({ phoneNumber, text });
      } finally {
        durations.record(timer.now() - started);
      }
    },
    async withhold(_code, budgetMs) {
      if (!settings.enabled) return;
      const wait = Math.min(durations.draw(random) ?? priorDuration(settings, random), budgetMs);
      if (wait > 0) await timer.sleep(wait);
    },
  };
}
