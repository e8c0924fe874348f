import type { Environment } from '../../lib/config.js';
import { type LocalEnvironmentOptions, localConfig } from '../../tests/harness/environment.js';
import { inProcessService, newCompany } from '../../tests/harness/in-process-service.js';
import { loginAnswerTimes, STAND_IN_SNS, slowSender } from '../../tests/harness/login-answer-times.js';
import { median, round } from './stats.js';

// login_phone's answer time for registered and unregistered phones (docs/security.md): the two
// medians and their difference, with the wait that hides it and without, from fresh containers,
// against a sender standing in for SNS. The bench checks it (answerTimeEqualized): a timing
// assertion on a shared 2-core machine belongs here, not in npm test.

export interface AnswerTimeMedians {
  registeredMs: number;
  unregisteredMs: number;
  differenceMs: number;
}

export interface AnswerTime {
  pairs: number;
  senderMs: { min: number; max: number };
  padded: AnswerTimeMedians;
  unpadded: AnswerTimeMedians;
}

async function medians(environment: LocalEnvironmentOptions, settings: Environment, pairs: number): Promise<AnswerTimeMedians> {
  const config = localConfig({ ...environment, settings: { ...environment.settings, ...STAND_IN_SNS.settings, ...settings } });
  const service = inProcessService(config, { sms: slowSender(STAND_IN_SNS.minMs, STAND_IN_SNS.maxMs) });
  const times = await loginAnswerTimes(service, await newCompany(service), pairs);
  const registeredMs = median(times.registered);
  const unregisteredMs = median(times.unregistered);
  return { registeredMs: round(registeredMs), unregisteredMs: round(unregisteredMs), differenceMs: round(registeredMs - unregisteredMs) };
}

export async function measureAnswerTime(environment: LocalEnvironmentOptions, pairs: number): Promise<AnswerTime> {
  return {
    pairs,
    senderMs: { min: STAND_IN_SNS.minMs, max: STAND_IN_SNS.maxMs },
    padded: await medians(environment, {}, pairs),
    unpadded: await medians(environment, { SMS_DECOY_WAIT: 'off' }, pairs),
  };
}

export function describeAnswerTime({ pairs, senderMs, padded, unpadded }: AnswerTime): string {
  const line = (m: AnswerTimeMedians) =>
    `registered ${m.registeredMs} ms, unregistered ${m.unregisteredMs} ms, difference ${m.differenceMs} ms`;
  return (
    `login_phone answer time (medians of ${pairs} sends each, fresh phones, fresh container, a ${senderMs.min}-${senderMs.max} ms sender ` +
    `standing in for SNS): ${line(padded)}; without the wait (SMS_DECOY_WAIT=off): ${line(unpadded)}\n`
  );
}

/**
 * Whether the wait hides which phones are registered: with it, the medians within `withinMs`; and,
 * so that the check can fail, without it the registered phone's median is longer by at least the
 * sender's shortest time (the measurement sees what the wait hides).
 */
export function answerTimeEqualized({ senderMs, padded, unpadded }: AnswerTime, withinMs: number): boolean {
  return Math.abs(padded.differenceMs) < withinMs && unpadded.differenceMs > senderMs.min && unpadded.differenceMs < senderMs.max + 20;
}
