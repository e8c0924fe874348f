import { randomInt, randomUUID } from 'node:crypto';
import { type Answer, type InProcessService, randomPhoneNumber, sessionIdOf } from '../in-process-service.js';
import { type ChaosContext, type Registered, sleep } from './context.js';
import type { RaceEnding } from './report.js';

// A race on one account (issue 37): a fresh PIN login and a proof of a new number, then at once
// the account's end (its deletion on that session, or an operator's disable; now and then
// neither, so the account stays active and the change races the logins alone), its move to the
// new number, a new email, and 1 to 3 OTP logins to the number being left. Each request is sent
// with its Idempotency-Key and retried with it after faults. The run records which sessions the
// logins to the old number were answered and which session made the change, for the session
// check (tests/harness/session-check.ts); the claim check finds a claim its ended user still holds.

/** The endings a race draws from: a deletion or a disable, each twice as often as neither. */
const ENDINGS: RaceEnding[] = ['deletion', 'disable', 'deletion', 'disable', 'none'];

/** How many times again a request before the race is sent with its key while its answers are ambiguous. */
const PREPARE_ROUNDS = 5;
/** A login code in an SMS (lib/sms/sms-text.ts): the phone change's warning to the old number has none. */
const LOGIN_CODE = /^(\d{6}) is your\b/;
/** The already-moved answer of a phone change run again after a 503 that had committed. */
const MOVED_BEFORE = 'is already this account’s number';
/**
 * A few ms before each racing request, so that they interleave differently from race to race; the
 * end waits up to a request's time, as a disable (a direct write, with no request to parse and no
 * token to check) would otherwise come first almost always.
 */
const jitter = (ms = 25) => sleep(randomInt(0, ms));

/**
 * The race as a flow of the run, and what it leaves for after the faults. `atLeast` races are
 * wanted first (see ChaosOptions.races); beyond them, at most one account in four races.
 */
export function oneAccountRace(ctx: ChaosContext, { atLeast }: { atLeast: number }) {
  const { report, wrong, isAmbiguous } = ctx;
  /** The service or the slowed container on its clock, by a coin: a racing request's reads and writes take more or less time. */
  const either = () => (Math.random() < 0.5 ? ctx.service : ctx.slow);
  const race = report.race;
  /** Accounts picked for a race that has not started yet (its login and proof under way). */
  let starting = 0;
  const eligible = (account: Registered) =>
    account.quietAfter <= ctx.service.clock.now() &&
    account.device !== undefined &&
    !account.pinLocked &&
    race.flows + starting < Math.max(atLeast, ctx.registered.length / 4);
  /** Fewer races started or starting than asked for, and an account free for one. */
  const wanted = () => race.flows + starting < atLeast && ctx.registered.some((account) => ctx.isFree(account) && eligible(account));
  /** OTP logins still ambiguous at the end of their flow, sent again with their key once the faults are off. */
  const pendingLogins: { via: InProcessService; body: Record<string, unknown>; key: string; phoneE164: string; resent: boolean }[] = [];

  /** A keyed request, sent again with its key once if ambiguous: its answer, key, and whether any answer was ambiguous. */
  const keyed = async (name: 'userPhoneChange' | 'userProfileUpdate', body: unknown, authorization: string) => {
    const key = randomUUID();
    let ambiguous = false;
    const answer = await ctx.untilDefinite(async () => {
      const each = await ctx.call(name, body, { Authorization: authorization, 'Idempotency-Key': key }, 'POST', either());
      ambiguous ||= isAmbiguous(each);
      return each;
    }, 1);
    return { answer, key, ambiguous };
  };

  /**
   * An OTP login's answer: a session, recorded with the number logged in to; or a refusal the race
   * explains: 400 code 10 (the change deleted the code), 401 code 4 (the code's user no longer
   * active, docs/decisions.md, or no longer at that number: no session is granted). A code whose
   * send was sent again after an ambiguous answer may be refused 9 as well: the first run's code,
   * written late (a 'late' fault), may have replaced the one the second run texted last.
   */
  const settleLogin = (answer: Answer, phoneE164: string, resent: boolean) => {
    const code = answer.body.error[0];
    if (answer.status === 200) {
      race.loginsAnswered++;
      ctx.recordOtpLogin(answer, phoneE164);
    } else if ((answer.status === 400 && (code === 10 || (resent && code === 9))) || (answer.status === 401 && code === 4)) {
      race.loginsRefused++;
    } else if (!isAmbiguous(answer)) {
      wrong('an OTP login to the number being left was answered neither 200, 400 code 10 nor 401 code 4', answer);
    }
  };

  const flow = () =>
    ctx.withAccount(eligible, async (account) => {
      race.attempts++;
      starting++;
      let started = false;
      try {
        await raceOn(account, () => {
          started = true;
          starting--;
          race.flows++;
        });
      } finally {
        if (!started) starting--;
      }
    });

  /** The race on one account: `start` is called as the racing requests go out. */
  const raceOn = async (account: Registered, start: () => void) => {
    const old = account.phone;
    const oldE164 = `+1${old}`;
    // Codes to the old number go out on this clock and each of the ones ahead.
    account.quietAfter = ctx.service.clock.now() + (ctx.ahead.length + 1) * ctx.interval * 1000;
    const loginTarget = { dial_code: '+1', phone_number: old, user_type: 2, otp_type: 1 };
    // Requests before the race starts, each needing a definite answer: more tries than a flow's, and
    // a race picked before the run's end goes on past it (a short run has few). The fresh proof of
    // the holder is a PIN login on the account's device: an OTP login's change would wait (contract 3.11, round 5).
    if (!(await ctx.freshPinLogin(account, PREPARE_ROUNDS))) return;
    const authorization = `Token ${account.token}`;
    const number = randomPhoneNumber();
    const proof = await ctx.sendAndCheck(
      { dial_code: '+1', phone_number: number, user_type: 2, otp_type: 2 },
      { Authorization: authorization },
      ctx.service,
      { pastTheEnd: true, rounds: PREPARE_ROUNDS },
    );
    if (!proof) return;
    const ending = ENDINGS[randomInt(ENDINGS.length)]!;
    const ended = ending !== 'none';
    /** What each racing request was answered first, for the race's log line. */
    const outcomes = { end: '', change: 0, email: 0, logins: [] as number[] };

    /**
     * A code sent to the old number through the container `index` intervals ahead: the code, or
     * none (no SMS went), and whether the send was sent again after an ambiguous answer.
     */
    const codeToOld = async (index: number): Promise<{ code: string; resent: boolean } | undefined> => {
      const before = ctx.sns.published.length;
      const key = randomUUID();
      const via = ctx.ahead[index]!;
      let resent = false;
      const sent = await ctx.untilDefinite(async () => {
        const each = await ctx.call('loginPhone', loginTarget, { 'Idempotency-Key': key }, 'POST', via);
        resent ||= isAmbiguous(each);
        return each;
      }, 2);
      if (sent.status !== 200) {
        if (sent.status !== 429 && !isAmbiguous(sent)) wrong('a code to the number being left was not sent', sent);
        return undefined;
      }
      // None when the number is no longer the account's or the account not active: the answer stays 200 (contract 6).
      const code = ctx.sns.published
        .slice(before)
        .filter((sms) => sms.phoneNumber === oldE164)
        .map((sms) => LOGIN_CODE.exec(sms.message)?.[1])
        .filter((each) => each !== undefined)
        .at(-1);
      if (!code) return undefined;
      race.loginCodes++;
      return { code, resent };
    };
    const loginToOld = async (index: number, { code, resent }: { code: string; resent: boolean }) => {
      const via = ctx.ahead[index]!;
      const body = { ...loginTarget, otp: code };
      const key = randomUUID();
      const answer = await ctx.untilDefinite(() => ctx.call('verifyOtp', body, { 'Idempotency-Key': key }, 'POST', via), 2);
      if (isAmbiguous(answer)) pendingLogins.push({ via, body, key, phoneE164: oldE164, resent });
      else settleLogin(answer, oldE164, resent);
      outcomes.logins.push(answer.status);
    };
    // The first login's code is waiting when the race starts: its verification races the change at once.
    const first = await codeToOld(0);
    const logins = randomInt(1, Math.min(3, ctx.ahead.length) + 1);
    start();
    race.byEnding[ending]++;
    let undecided = false;

    const end = async () => {
      await jitter(ending === 'disable' ? 300 : 100);
      if (ending === 'disable') {
        outcomes.end = (await ctx.disableUser(account, either())) ? 'disabled' : 'disable failed (run again after the faults)';
      } else if (ending === 'deletion') {
        // Sent once, as the deletion flow's: one that committed before its 503 ended the session it
        // is sent with, and its retry after the faults takes 401 as done (the table decides).
        const key = randomUUID();
        const answer = await ctx.call('userDelete', {}, { Authorization: authorization, 'Idempotency-Key': key }, 'POST', either());
        outcomes.end = `deletion ${answer.status}`;
        if (isAmbiguous(answer)) ctx.pendingDeletions.push({ account, key, authorization });
        else if (answer.status === 200) ctx.deletions.push({ account, eraseAfter: answer.body.data.erase_after });
        else wrong('a deletion racing its account’s changes was refused', answer);
        account.deleted = true;
        account.device = undefined;
      }
      if (ended) account.loggedOut = true;
    };

    /** A change answered 401 once its account ended is refused; one that was ambiguous before that may have committed. */
    const refusedByTheEnd = (answer: Answer, ambiguous: boolean, what: string) => {
      if (answer.status === 401 && ended) {
        if (ambiguous) account.uncertain = true;
      } else wrong(`${what} racing on its account was refused`, answer);
    };
    const settleChange = (answer: Answer, ambiguous: boolean) => {
      // As in the phone change flow: one whose commit was answered 503 finds the number its own on its retry.
      const movedBefore = answer.status === 400 && answer.body.data?.errors?.[0]?.detail === MOVED_BEFORE;
      if (movedBefore) report.phoneChangesRerun++;
      if (answer.status === 200 || movedBefore) {
        report.phoneChanges++;
        race.phoneChanged++;
        account.phone = number;
      } else refusedByTheEnd(answer, ambiguous, 'a phone change with both proofs');
    };
    const email = ctx.freshEmail();
    const settleEmail = (answer: Answer, ambiguous: boolean) => {
      if (answer.status === 200) {
        report.profileUpdates++;
        report.emailChanges++;
        race.emailChanged++;
        ctx.profileUpdated.add(account.userId);
        account.email = email;
      } else refusedByTheEnd(answer, ambiguous, 'an email change');
    };
    /** A change sent with its key; one still ambiguous is sent again once the faults are off. */
    const change = async (
      name: 'userPhoneChange' | 'userProfileUpdate',
      body: Record<string, unknown>,
      settle: (answer: Answer, ambiguous: boolean) => void,
    ) => {
      await jitter();
      const { answer, key, ambiguous } = await keyed(name, body, authorization);
      outcomes[name === 'userPhoneChange' ? 'change' : 'email'] = answer.status;
      if (!isAmbiguous(answer)) return settle(answer, ambiguous);
      undecided = true;
      ctx.pendingChanges.push({ account, name, body, key, authorization, settle: (retried) => settle(retried, true) });
    };

    report.phoneChangesSent++;
    ctx.answered.phoneChanges.push({ sid: sessionIdOf(authorization), userId: account.userId, toE164: `+1${number}` });
    await Promise.all([
      end(),
      change(
        'userPhoneChange',
        { dial_code: '+1', phone_number: number, phone_verification_token: proof.body.data.verification_token },
        settleChange,
      ),
      change('userProfileUpdate', { email }, settleEmail),
      (async () => {
        for (let index = 0; index < logins; index++) {
          // None past the run's end: the race has had its first login.
          if (index > 0 && Date.now() >= ctx.endAt) break;
          const code = index === 0 ? first : await codeToOld(index);
          if (code) await loginToOld(index, code);
        }
      })(),
    ]);
    // An active account whose change is undecided waits for its retry (which unparks it).
    if (undecided) account.parked = true;
    ctx.log(
      `race on user ${account.userId}: ${outcomes.end || ending}, phone change ${outcomes.change}, email ${outcomes.email}, ` +
        `logins to the number left ${outcomes.logins.join(' ') || 'none'}`,
    );
  };

  /** The OTP logins still ambiguous, sent again with their key (faults off): each has a definite answer. */
  const afterFaults = async () => {
    for (const { via, body, key, phoneE164, resent } of pendingLogins) {
      race.loginsRetried++;
      const answer = await ctx.untilDefinite(() => ctx.call('verifyOtp', body, { 'Idempotency-Key': key }, 'POST', via), 20);
      if (isAmbiguous(answer)) wrong('an OTP login to the number being left, retried with its key, had no definite outcome', answer);
      else settleLogin(answer, phoneE164, resent);
    }
  };

  return { flow, wanted, afterFaults };
}
