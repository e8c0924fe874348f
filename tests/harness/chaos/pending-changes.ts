import { randomInt, randomUUID } from 'node:crypto';
import { type Answer, type EndpointName, type InProcessService, randomPhoneNumber } from '../in-process-service.js';
import { type ChaosContext, type Registered, sleep } from './context.js';

// Races around a user's own pending phone change (issue 39; contract 3.11, amended in round 5): an
// OTP login, the login PIN and a proof of the new number make a change that waits
// PHONE_CHANGE_HOLD_HOURS, 0 in the run (run.ts), so it is due at once. Then a code sent to the new
// number, and at once either its verification (the completion) and the user's cancel, or the
// completion and the user's deletion. Exactly one of each pair wins; the table check afterwards
// (tests/harness/phone-change-check.ts, claim-check.ts) finds a change or claim left half-done.
// The racing requests, and the recovery races' (phone-recoveries.ts), are sent through the
// helpers below: each with its Idempotency-Key, the time it was in flight, and its retry after the
// faults when still ambiguous.

/** How many times again a request before the race is sent with its key while its answers are ambiguous. */
export const PREPARE_ROUNDS = 5;
/** A login code in an SMS (lib/sms/sms-text.ts): a warning to the old number has none. */
const LOGIN_CODE = /^(\d{6}) is your\b/;

export const jitter = (ms = 25) => sleep(randomInt(0, ms));
export const errorOf = (answer: Answer) => `${answer.status} ${answer.body?.error?.[0]}`;
export const is = (answer: Answer, status: number, code?: number) =>
  answer.status === status && (code === undefined || answer.body.error[0] === code);

/** A request sent with its key: its answer (definite once settled), when it was in flight, and whether any answer was ambiguous. */
export interface Sent {
  name: EndpointName;
  answer: Answer;
  ambiguous: boolean;
  /** Date.now() as it was sent and as it was answered (its first round's answer). */
  startedAt: number;
  endedAt: number;
  /** Sends it again with its key. */
  again: () => Promise<Answer>;
}

/** Two requests were in flight at the same time: each was sent before the other was answered. */
export const overlapped = (a: Sent | undefined, b: Sent | undefined) =>
  a !== undefined && b !== undefined && a.startedAt < b.endedAt && b.startedAt < a.endedAt;

/** What the races share: sending with keys, and the races whose answers wait for the faults to end. */
export function raceTools(ctx: ChaosContext) {
  const { isAmbiguous } = ctx;
  /** The service or the slowed container on its clock, by a coin. */
  const either = () => (Math.random() < 0.5 ? ctx.service : ctx.slow);
  /** Races with an answer still ambiguous: settled once the faults are off, their accounts parked till then. */
  const unsettled: { sent: Sent[]; account: Registered; settle: () => Promise<void> }[] = [];

  const send = async (
    name: EndpointName,
    body: unknown,
    { authorization, via = either(), rounds = 1 }: { authorization?: string; via?: InProcessService; rounds?: number } = {},
  ): Promise<Sent> => {
    const key = randomUUID();
    const headers = { 'Idempotency-Key': key, ...(authorization ? { Authorization: authorization } : {}) };
    const again = () => ctx.call(name, body, headers, 'POST', via);
    const startedAt = Date.now();
    let endedAt = 0;
    let ambiguous = false;
    const answer = await ctx.untilDefinite(async () => {
      const each = await again();
      endedAt ||= Date.now();
      ambiguous ||= isAmbiguous(each);
      return each;
    }, rounds);
    return { name, answer, ambiguous, startedAt, endedAt, again };
  };

  /** Settles the race now if every answer is definite; else parks the account until after the faults. */
  const settleOrPark = async (account: Registered, sent: (Sent | undefined)[], settle: () => Promise<void>) => {
    const all = sent.filter((each) => each !== undefined);
    if (all.some((each) => isAmbiguous(each.answer))) {
      account.parked = true;
      unsettled.push({ sent: all, account, settle });
      return;
    }
    await settle();
  };

  /** A login code sent to a number (login_phone, otp_type 1) through `via`: the code, or undefined when no SMS went. */
  const loginCodeTo = async (phoneNumber: string, via: InProcessService): Promise<string | undefined> => {
    const before = ctx.sns.published.length;
    const sent = await send('loginPhone', { dial_code: '+1', phone_number: phoneNumber, user_type: 2, otp_type: 1 }, { via, rounds: 3 });
    if (sent.answer.status !== 200) {
      if (sent.answer.status !== 429 && !isAmbiguous(sent.answer))
        ctx.wrong('a login code to a pending change’s number was not sent', sent.answer);
      return undefined;
    }
    return ctx.sns.published
      .slice(before)
      .filter((sms) => sms.phoneNumber === `+1${phoneNumber}`)
      .map((sms) => LOGIN_CODE.exec(sms.message)?.[1])
      .filter((each) => each !== undefined)
      .at(-1);
  };

  /** Every unsettled race's ambiguous requests sent again with their key (faults off), then the race settled. */
  const afterFaults = async () => {
    for (const { sent, account, settle } of unsettled) {
      for (const each of sent) {
        if (!isAmbiguous(each.answer)) continue;
        ctx.report.pendingChanges.retried++;
        each.answer = await ctx.untilDefinite(each.again, 20);
        if (isAmbiguous(each.answer))
          ctx.wrong(
            `an ambiguous ${each.name} retried with its key had no definite outcome (Retry-After ${each.answer.headers['retry-after'] ?? 'none'})`,
            each.answer,
          );
      }
      await settle();
      account.parked = false;
    }
  };

  return { either, send, settleOrPark, loginCodeTo, afterFaults };
}

export type RaceTools = ReturnType<typeof raceTools>;

/** Races around pending changes as flows of the run; `atLeast` of each kind are wanted first (ChaosOptions.pendingRaces). */
export function pendingChanges(ctx: ChaosContext, tools: RaceTools, { atLeast }: { atLeast: number }) {
  const { report, wrong, isAmbiguous, service, interval } = ctx;
  const figures = report.pendingChanges;
  const { send, settleOrPark, loginCodeTo } = tools;
  const starting = { cancels: 0, deletions: 0 };
  const eligible = (account: Registered) => account.quietAfter <= service.clock.now();

  /**
   * A pending change of the account to a fresh number, due at once: an OTP login to its number,
   * a proof of the new number with that token, the change with the login PIN. Then a login code
   * to the new number, through the container one interval ahead (the proof's code went on the
   * service's clock). Undefined when a step had no definite success (the account then parked if
   * the change itself is undecided).
   */
  const pendingChangeOf = async (account: Registered, kind: 'cancels' | 'deletions') => {
    account.quietAfter = service.clock.now() + interval * 1000;
    const login = await ctx.sendAndCheck({ dial_code: '+1', phone_number: account.phone, user_type: 2, otp_type: 1 }, {}, service, {
      pastTheEnd: true,
      rounds: PREPARE_ROUNDS,
    });
    if (!login) return undefined;
    ctx.loggedInByOtp(account, login);
    const authorization = `Token ${account.token}`;
    const number = randomPhoneNumber();
    const proof = await ctx.sendAndCheck(
      { dial_code: '+1', phone_number: number, user_type: 2, otp_type: 2 },
      { Authorization: authorization },
      service,
      { pastTheEnd: true, rounds: PREPARE_ROUNDS },
    );
    if (!proof) return undefined;
    const body = {
      dial_code: '+1',
      phone_number: number,
      phone_verification_token: proof.body.data.verification_token,
      login_pin: account.loginPin,
    };
    const change = await send('userPhoneChange', body, { authorization, via: service, rounds: PREPARE_ROUNDS });
    if (isAmbiguous(change.answer)) {
      // Made or not, it waits for its retry: the account is parked till then.
      await settleOrPark(account, [change], async () => {
        if (change.answer.status === 200) figures[kind].pending++;
        else wrong('a pending phone change retried with its key was refused', change.answer);
      });
      return undefined;
    }
    if (change.answer.status !== 200 || change.answer.body.data.pending !== 1)
      return void wrong('a phone change from an OTP login with the login PIN did not pend', change.answer);
    figures[kind].pending++;
    const code = await loginCodeTo(number, ctx.ahead[0]!);
    return { authorization, number, changeId: change.answer.body.data.change_id as string, code };
  };

  /** The completing login: the code to the new number verified through the container that sent it. */
  const completion = async (number: string, code: string) => {
    await jitter();
    return send('verifyOtp', { dial_code: '+1', phone_number: number, user_type: 2, otp_type: 1, otp: code }, { via: ctx.ahead[0]! });
  };

  /**
   * The account moved by a completion answered 200: its number is the login's, every session before
   * it ended. The login's own session began on a clock one interval ahead (its token not valid yet
   * on the service's): the account keeps none, as if logged out.
   */
  const moved = (account: Registered, number: string, login: Answer) => {
    account.phone = number;
    ctx.recordOtpLogin(login, `+1${number}`);
    account.loggedOut = true;
    // The new number's last code went through the container one interval ahead.
    account.quietAfter = service.clock.now() + 2 * interval * 1000;
  };

  /** (a) The change's cancel, on the OTP session that made it, racing its completion: exactly one wins. */
  const cancelRace = (account: Registered) =>
    picked('cancels', async (fire) => {
      const change = await pendingChangeOf(account, 'cancels');
      if (!change) return;
      fire();
      const [cancel, completed] = await Promise.all([
        (async () => {
          await jitter();
          return send('userPhoneChangeCancel', { change_id: change.changeId }, { authorization: change.authorization });
        })(),
        change.code ? completion(change.number, change.code) : undefined,
      ]);
      if (overlapped(cancel, completed)) figures.cancels.overlapped++;
      await settleOrPark(account, [cancel, completed], async () => {
        const won = completed?.answer.status === 200;
        const cancelled = cancel.answer.status === 200;
        if (won && cancelled) return wrong(`user ${account.userId}'s pending change was both cancelled and completed`);
        if (won) {
          figures.cancels.completed++;
          moved(account, change.number, completed.answer);
          // The change was gone (404 code 6), or the move ended the cancel's session first (401 code 4).
          if (!is(cancel.answer, 404, 6) && !is(cancel.answer, 401, 4)) wrong('a cancel that lost to the completion', cancel.answer);
        } else if (cancelled) {
          figures.cancels.cancelled++;
          // The code's change is over: the code logs no one in (400 code 10).
          if (completed && !is(completed.answer, 400, 10)) wrong('a completing login that lost to the cancel', completed.answer);
        } else wrong(`user ${account.userId}'s pending change was neither cancelled (${errorOf(cancel.answer)}) nor completed`);
      });
    });

  /**
   * (b) The user's deletion, on a fresh PIN login's session (strong: deleted at once; from the OTP
   * session that made the change it would only be held, contract 3.15 second reading), racing its completion: either
   * the deletion wins (the completion refused, the change ended with the account), or the move
   * wins and the deletion follows it (read again after the move), or the move ended the deletion's
   * session before it was checked (401) and the account is then deleted on the new session.
   */
  const deletionRace = (account: Registered) =>
    picked('deletions', async (fire) => {
      const change = await pendingChangeOf(account, 'deletions');
      if (!change?.code) return;
      if (!(await ctx.freshPinLogin(account, 3))) return;
      const strong = `Token ${account.token}`;
      const device = account.device;
      fire();
      const code = change.code;
      const [deletion, completed] = await Promise.all([
        (async () => {
          await jitter();
          return send('userDelete', {}, { authorization: strong });
        })(),
        completion(change.number, code),
      ]);
      if (overlapped(deletion, completed)) figures.deletions.overlapped++;
      account.deleted = true;
      account.loggedOut = true;
      account.device = undefined;
      const deletedAt = async () => {
        // On a fresh PIN login's session on the device (the completion's is an OTP login's: it would be held).
        account.device = device;
        const signedIn = await ctx.freshPinLogin(account, 3);
        account.device = undefined;
        if (!signedIn) return wrong(`user ${account.userId}'s right PIN after the move was refused`);
        const again = await send('userDelete', {}, { authorization: `Token ${account.token}`, via: ctx.ahead[0]!, rounds: 3 });
        // The login made the account's token live again: the deletion ends it, as it ended the first.
        account.loggedOut = true;
        await settleOrPark(account, [again], async () => {
          // A deletion that committed before an ambiguous answer ended the session it was sent on: 401 on its retry.
          if (again.answer.status === 200) ctx.deletions.push({ account, eraseAfter: again.answer.body.data.erase_after });
          else if (again.ambiguous && is(again.answer, 401, 4)) ctx.deletions.push({ account });
          else return wrong('a deletion on the session of a completed change was refused', again.answer);
          figures.deletions.movedThenDeleted++;
        });
      };
      await settleOrPark(account, [deletion, completed], async () => {
        const won = completed.answer.status === 200;
        if (won && deletion.answer.status === 200) {
          // The move first, then the deletion, read again after the move refused its first write (its
          // session checked before the move ended it): the account moved, then was deleted, claims and all.
          moved(account, change.number, completed.answer);
          ctx.deletions.push({ account, eraseAfter: deletion.answer.body.data.erase_after });
          figures.deletions.movedThenDeleted++;
          return;
        }
        if (deletion.answer.status === 200 || (deletion.ambiguous && is(deletion.answer, 401, 4) && !won)) {
          figures.deletions.deletedFirst++;
          ctx.deletions.push({ account, ...(deletion.answer.status === 200 ? { eraseAfter: deletion.answer.body.data.erase_after } : {}) });
          // Deleted first: the user is not active (401 code 4), or the change ended with the account (400 code 10).
          if (!is(completed.answer, 401, 4) && !is(completed.answer, 400, 10))
            wrong('a completing login that lost to the deletion', completed.answer);
          notCompletable.push(change.number);
        } else if (won) {
          moved(account, change.number, completed.answer);
          if (!is(deletion.answer, 401, 4)) wrong('a deletion that lost to the completion', deletion.answer);
          await deletedAt();
        } else wrong(`user ${account.userId} was neither deleted (${errorOf(deletion.answer)}) nor moved`, completed.answer);
      });
    });

  /** Numbers of changes whose user was deleted first: after the faults, a login to each must send no code. */
  const notCompletable: string[] = [];

  /** Counts a race picked, and as starting until it fires (`fire`), so that the races wanted are not picked twice. */
  const picked = async (kind: 'cancels' | 'deletions', race: (fire: () => void) => Promise<void>) => {
    figures[kind].attempts++;
    starting[kind]++;
    let fired = false;
    try {
      await race(() => {
        fired = true;
        starting[kind]--;
        figures[kind].races++;
      });
    } finally {
      if (!fired) starting[kind]--;
    }
  };

  const started = (kind: 'cancels' | 'deletions') => figures[kind].races + starting[kind];
  const flows = {
    cancelRace: () => ctx.withAccount(eligible, cancelRace),
    // One in ten accounts at most is deleted this way, as by the deletion flow.
    deletionRace: () =>
      ctx.withAccount(
        (account) => eligible(account) && (started('deletions') < atLeast || figures.deletions.races < ctx.registered.length / 10),
        deletionRace,
      ),
  };
  /** A flow of a kind fewer than `atLeast` have started, whether or not an account is free for it. */
  const asked = () => (started('cancels') < atLeast ? flows.cancelRace : started('deletions') < atLeast ? flows.deletionRace : undefined);
  /** A flow asked for, with an account free for it. */
  const wanted = () => (ctx.registered.some((account) => ctx.isFree(account) && eligible(account)) ? asked() : undefined);

  /** After the faults: a login to the number of a change whose user was deleted first sends no code. */
  const afterFaults = async () => {
    for (const number of notCompletable) {
      // Through the container furthest ahead: the number's last code went one interval ahead.
      const code = await loginCodeTo(number, ctx.ahead.at(-1)!);
      if (code) wrong(`a login to ${number}, the number of a deleted user's pending change, was sent a code`);
    }
  };

  return { ...flows, asked, wanted, afterFaults };
}
