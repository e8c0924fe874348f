import type { Company } from '../../lib/companies/companies.js';
import { newId } from '../../lib/ids.js';
import type { SendText } from '../../lib/sms/sms-sender.js';
import { writeTransaction } from '../../lib/store/transactions.js';
import { phoneClaimPut } from '../../lib/store/user-store.js';
import { type InProcessService, invoke, randomPhoneNumber } from './in-process-service.js';

// login_phone's answer time as a client meets it, for a registered and an unregistered phone:
// what the tests and the bench compare (docs/security.md, answer time). SNS is stood in for by a
// sender that takes a set time, as a real one would.

/** Spreads durations over the range in a low-discrepancy order: any run of sends covers it evenly. */
const GOLDEN_FRACTION = (Math.sqrt(5) - 1) / 2;

/** A sender that takes minMs to maxMs per message, as SNS takes its time, and sends nothing. */
export function slowSender(minMs: number, maxMs: number): SendText {
  let sent = 0;
  return async () => {
    sent += 1;
    const ms = minMs + (maxMs - minMs) * ((sent * GOLDEN_FRACTION) % 1);
    await new Promise((resolve) => setTimeout(resolve, ms));
  };
}

/**
 * The stand-in the tests and the bench time against: 30 to 60 ms a message, and the prior a
 * fresh container uses set near it (median 45, 90th percentile 57), as it would be set near SNS.
 */
export const STAND_IN_SNS = {
  minMs: 30,
  maxMs: 60,
  settings: { SMS_DECOY_PRIOR_MEDIAN_MS: '45', SMS_DECOY_PRIOR_P90_MS: '57' },
};

export interface AnswerTimes {
  /** Milliseconds, one per call: login codes to phones with an active account (an SMS is sent). */
  registered: number[];
  /** And to phones without one (no SMS). */
  unregistered: number[];
}

/**
 * Sends `pairs` login codes to fresh registered phones and as many to fresh unregistered ones,
 * one call at a time as Lambda serves them, alternating which goes first so drift falls on both.
 * The registered phones get only their phone claims, the one item login_phone reads of an
 * account (registration's scrypt would take most of the time measured here).
 */
export async function loginAnswerTimes(service: InProcessService, company: Company, pairs: number): Promise<AnswerTimes> {
  const companyId = company.company_id;
  const phones = Array.from({ length: pairs }, () => [randomPhoneNumber(), randomPhoneNumber()] as const);
  const claims = phones.map(([registered]) => ({
    label: 'claim',
    item: phoneClaimPut(service.app.table, companyId, `+1${registered}`, 2, newId(), 1),
  }));
  // A transaction takes at most 100 items.
  for (let start = 0; start < claims.length; start += 100) await writeTransaction(service.app.table, claims.slice(start, start + 100));

  const send = async (phone: string): Promise<number> => {
    const body = { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 1 };
    const started = performance.now();
    const answer = await invoke(service.handlers.loginPhone, { path: '/l', headers: { CompanyID: companyId }, body });
    const ms = performance.now() - started;
    if (answer.status !== 200) throw new Error(`login_phone answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return ms;
  };
  const times: AnswerTimes = { registered: [], unregistered: [] };
  for (const [index, [registered, unregistered]] of phones.entries()) {
    if (index % 2 === 0) {
      times.registered.push(await send(registered));
      times.unregistered.push(await send(unregistered));
    } else {
      times.unregistered.push(await send(unregistered));
      times.registered.push(await send(registered));
    }
  }
  return times;
}
