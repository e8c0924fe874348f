import { randomUUID } from 'node:crypto';
import { epochSeconds } from '../../../lib/clock.js';
import { signedLoginPin } from '../device-keys.js';
import type { Answer } from '../in-process-service.js';
import { type ChaosContext, type Registered, sleep } from './context.js';

// Login PINs on the account's device (contract 3.6): PIN logins, where the right PIN is never
// refused (now and then after a wrong one), and locks, where wrong PINs are answered 17 until the
// lock answers 18, to the right PIN too. A lock that faults kept from view is sought again once
// they are off.

export function loginPins(ctx: ChaosContext) {
  const { config, report, registered, wrong, call, untilDefinite, isAmbiguous } = ctx;

  /** A PIN login on the account's device with its own key, retried with it up to `rounds` times. */
  const sendPin = (account: Registered, pin: string, rounds: number) => {
    const body = signedLoginPin(account.device!, ctx.companyId, pin, { timestamp: epochSeconds(ctx.service.clock) });
    const key = randomUUID();
    return untilDefinite(() => call('loginPin', body, { 'Idempotency-Key': key }), rounds);
  };
  const wrongPinOf = (account: Registered) => (account.loginPin === '0000' ? '1111' : '0000');

  /** A PIN login on the account's device, retried with its key: the right PIN is never refused; now and then a wrong one first. */
  const pinLogin = () =>
    ctx.withAccount(
      (account) => account.device !== undefined && !account.pinLocked,
      async (account) => {
        const login = (pin: string) => sendPin(account, pin, 3);
        if (account.wrongPins < 2 && Math.random() < 0.2) {
          account.wrongPins++;
          const refused = await login(wrongPinOf(account));
          // 503, or 409 code 20 (its first run still held): its outcome is unknown.
          if (!isAmbiguous(refused) && !(refused.status === 400 && refused.body.error[0] === 17))
            wrong('a wrong PIN was not answered 17', refused);
        }
        const answer = await login(account.loginPin);
        if (answer.status === 200) {
          report.pinLogins++;
          account.wrongPins = 0;
          account.token = answer.body.data.token.token;
          account.tokenOnDevice = true;
          account.loggedOut = false;
        } else if (!isAmbiguous(answer)) {
          wrong('the right PIN was refused', answer);
        }
      },
    );

  /**
   * Wrong PINs on the account's device until the lock answers 18: each before it 17, and never more
   * of them than the lock's limit (each holds one of its tries). 'unseen' when faults hid the lock.
   */
  const isLocked = (answer: Answer) => answer.status === 400 && answer.body.error[0] === 18;
  const wrongUntilLocked = async (account: Registered, rounds: number): Promise<'locked' | 'unseen' | 'wrong'> => {
    let compared = 0;
    for (let sent = 0; sent < config.pinMaxFailures + 3; sent++) {
      const answer = await sendPin(account, wrongPinOf(account), rounds);
      if (isLocked(answer)) return 'locked';
      if (isAmbiguous(answer)) continue;
      const problem = !(answer.status === 400 && answer.body.error[0] === 17)
        ? 'a wrong PIN was answered neither 17 nor 18'
        : ++compared > config.pinMaxFailures && `a login PIN compared ${compared} wrong PINs and did not lock`;
      if (problem) {
        wrong(problem, answer);
        return 'wrong';
      }
    }
    return 'unseen';
  };
  /** Once locked, the right PIN is refused 18 as well: nothing is compared. */
  const rightPinRefused = async (account: Registered, rounds: number) => {
    const answer = await sendPin(account, account.loginPin, rounds);
    if (!isAmbiguous(answer) && !isLocked(answer)) wrong('a locked login PIN was not answered 18 to the right PIN', answer);
  };
  /**
   * Locks the login PIN by wrong PINs: one in ten accounts at most. A lock whose answers faults
   * kept from view is sought again after them, the account parked until then.
   */
  const pendingLocks: Registered[] = [];
  const lockPin = () =>
    ctx.withAccount(
      (account) => account.device !== undefined && !account.pinLocked && report.pinLocks + pendingLocks.length < registered.length / 10,
      async (account) => {
        account.pinLocked = true;
        const outcome = await wrongUntilLocked(account, 3);
        if (outcome === 'wrong') return;
        if (outcome === 'unseen') {
          pendingLocks.push(account);
          account.parked = true;
          return;
        }
        report.pinLocks++;
        await rightPinRefused(account, 3);
      },
    );

  /** Each lock kept from view, sought again (faults off) until it answers 18. */
  const afterFaults = async () => {
    // A lock whose mark a fault lost answers 503 (tries in flight) until its tries are old: sought till then.
    const triesOldMs = (config.functionTimeoutMs + config.dynamodbTimeoutMs + 5000) * 1.5;
    await Promise.all(
      pendingLocks.map(async (account) => {
        report.pinLocksRetried++;
        const until = Date.now() + triesOldMs;
        let outcome = await wrongUntilLocked(account, 20);
        while (outcome === 'unseen' && Date.now() < until) {
          await sleep(1000);
          outcome = await wrongUntilLocked(account, 20);
        }
        if (outcome === 'unseen') wrong(`user ${account.userId}'s login PIN did not lock after its wrong PINs`);
        else if (outcome === 'locked') {
          report.pinLocks++;
          await rightPinRefused(account, 20);
        }
        account.parked = false;
      }),
    );
  };

  return { pinLogin, lockPin, afterFaults };
}
