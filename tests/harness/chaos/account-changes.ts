import { randomInt, randomUUID } from 'node:crypto';
import { type Answer, randomPhoneNumber, sessionIdOf } from '../in-process-service.js';
import type { AccountChange, ChaosContext, Registered } from './context.js';

// The account (issue 30): profile updates (names, and half the time a new email), races of 2 or 3
// users for one email (from an SMS-strength session names and email wait, contract 3.15 second
// reading: such an answer, pending 1, changes nothing yet and takes no claim), and moves to a new phone number (a PIN login, then a proof of the new
// number verified with that token; some racing for one number). An ambiguous change parks its
// accounts until it is sent again with its key once the faults are off; then no race has more
// than one winner. The claim check afterwards (tests/harness/claim-check.ts) finds what the
// answers cannot: a phone or email claimed twice, or by nobody.

export function accountChanges(ctx: ChaosContext) {
  const { report, wrong, call, untilDefinite, isAmbiguous, pendingChanges, profileUpdated, service, interval } = ctx;
  const isTaken = (answer: Answer) => answer.status === 409 && answer.body.error[0] === 7;
  /** Races for one value: more than one 200 among their answers (in the run or on retry) is wrong. */
  const races: { what: string; winners: number }[] = [];

  /**
   * Sends the changes side by side, each retried with its key. With any still ambiguous, every
   * account taking part is parked (its email or phone unknown, the value it raced for undecided)
   * until its retry after the run.
   */
  const changeAll = async (changes: AccountChange[], taking: Registered[]) => {
    let undecided = false;
    await Promise.all(
      changes.map(async (change) => {
        const key = randomUUID();
        const authorization = `Token ${change.account.token}`;
        const answer = await untilDefinite(
          () => call(change.name, change.body, { Authorization: authorization, 'Idempotency-Key': key }),
          1,
        );
        if (!isAmbiguous(answer)) return change.settle(answer);
        undecided = true;
        pendingChanges.push({ ...change, key, authorization });
      }),
    );
    if (undecided) for (const account of taking) account.parked = true;
  };

  /** Names, and half the time a new email no one else wants. */
  const updateProfile = () =>
    ctx.withAccount(
      (account) => !account.loggedOut,
      async (account) => {
        const email = Math.random() < 0.5 ? ctx.freshEmail() : undefined;
        const body = { first_name: `Ada ${randomInt(1000)}`, last_name: `King ${randomInt(1000)}`, ...(email ? { email } : {}) };
        await changeAll(
          [
            {
              account,
              name: 'userProfileUpdate',
              body,
              settle: (answer) => {
                if (answer.status !== 200) return wrong('a profile update was refused', answer);
                if (answer.body.data.pending === 1) return void report.profileChangesHeld++;
                report.profileUpdates++;
                profileUpdated.add(account.userId);
                if (!email) return;
                report.emailChanges++;
                account.email = email;
              },
            },
          ],
          [account],
        );
      },
    );

  /** 2 or 3 users ask for one free email at once (one wins, the others 409 code 7), or for an email one of them holds (all 409 code 7). */
  const emailRace = () =>
    ctx.withAccounts(
      randomInt(2, 4),
      (account) => !account.loggedOut && account.email !== undefined,
      async (accounts) => {
        if (accounts.length < 2) return;
        if (Math.random() < 0.3) {
          const [holder, ...askers] = accounts as [Registered, ...Registered[]];
          const settle = (answer: Answer) => {
            if (isTaken(answer)) report.takenEmailRefusals++;
            else wrong('an email another user holds was not refused 409 code 7', answer);
          };
          await changeAll(
            askers.map((account) => ({ account, name: 'userProfileUpdate', body: { email: holder.email }, settle })),
            accounts,
          );
          return;
        }
        report.emailRaces++;
        const email = ctx.freshEmail();
        const race = { what: `email ${email}`, winners: 0 };
        races.push(race);
        await changeAll(
          accounts.map((account) => ({
            account,
            name: 'userProfileUpdate',
            body: { first_name: 'Racer', email },
            settle: (answer) => {
              if (answer.status === 200 && answer.body.data.pending === 1) report.profileChangesHeld++;
              else if (answer.status === 200) {
                race.winners++;
                report.profileUpdates++;
                profileUpdated.add(account.userId);
                report.emailChanges++;
                account.email = email;
              } else if (!isTaken(answer)) wrong('a racer for a free email was answered neither 200 nor 409 code 7', answer);
            },
          })),
          accounts,
        );
      },
    );

  /**
   * 1 to 3 users move to one new number: each logs in by PIN on its device (the fresh proof of the holder), then
   * proves the number with that token (each racer's code through a clock one interval further on),
   * then all change at once: one wins, the others 409 code 7.
   */
  const phoneChange = () =>
    ctx.withAccounts(
      Math.random() < 0.6 ? randomInt(2, 4) : 1,
      // A session begun by PIN login on the account's device moves the number at once; one begun by
      // OTP login would only make a change that waits (contract 3.11, round 5).
      (account) => account.quietAfter <= service.clock.now() && account.device !== undefined && !account.pinLocked,
      async (accounts) => {
        const fresh = new Set<Registered>();
        if (Date.now() >= ctx.endAt) return;
        await Promise.all(
          accounts.map(async (account) => {
            if (await ctx.freshPinLogin(account, 2)) fresh.add(account);
          }),
        );
        const number = randomPhoneNumber();
        const race = { what: `phone ${number}`, winners: 0 };
        const proven: AccountChange[] = [];
        // In order: each racer's send is one interval after the one before it, on its clock.
        for (const [index, account] of accounts.entries()) {
          if (!fresh.has(account)) continue;
          const via = index === 0 ? service : ctx.ahead[index - 1]!;
          const target = { dial_code: '+1', phone_number: number, user_type: 2, otp_type: 2 };
          const verified = await ctx.sendAndCheck(target, { Authorization: `Token ${account.token}` }, via);
          if (!verified) continue;
          const body = { dial_code: '+1', phone_number: number, phone_verification_token: verified.body.data.verification_token };
          ctx.answered.phoneChanges.push({ sid: sessionIdOf(`Token ${account.token}`), userId: account.userId, toE164: `+1${number}` });
          proven.push({
            account,
            name: 'userPhoneChange',
            body,
            settle: (answer) => {
              // A change whose commit was answered 503 runs afresh on its retry (nothing ties the
              // write to its key, as registered_by_request does a registration's): it then finds the
              // number already the account's. Counted, so the report shows it; the table decides.
              const movedBefore = answer.status === 400 && answer.body.data?.errors?.[0]?.detail === 'is already this account’s number';
              if (movedBefore) report.phoneChangesRerun++;
              if (answer.status === 200 || movedBefore) {
                race.winners++;
                report.phoneChanges++;
                account.phone = number;
                // The new number had its last code on the furthest clock.
                account.quietAfter = service.clock.now() + (accounts.length + 1) * interval * 1000;
              } else if (!(isTaken(answer) && proven.length > 1)) wrong('a phone change with both proofs was refused', answer);
            },
          });
        }
        if (!proven.length) return;
        report.phoneChangesSent += proven.length;
        if (proven.length > 1) report.phoneRaces++;
        races.push(race);
        await changeAll(proven, accounts);
      },
    );

  /**
   * Every ambiguous profile update and phone change (the race on one account's too), retried with
   * its key (faults off), has a definite outcome; then no race has more than one winner.
   */
  const afterFaults = async () => {
    for (const change of pendingChanges) {
      report.accountChangesRetried++;
      const answer = await untilDefinite(
        () => call(change.name, change.body, { Authorization: change.authorization, 'Idempotency-Key': change.key }),
        20,
      );
      if (isAmbiguous(answer)) wrong(`an ambiguous ${change.name} retried with its key had no definite outcome`, answer);
      else change.settle(answer);
      change.account.parked = false;
    }
    for (const race of races) if (race.winners > 1) wrong(`${race.winners} users were answered 200 for ${race.what}`);
  };

  return { updateProfile, emailRace, phoneChange, afterFaults };
}
