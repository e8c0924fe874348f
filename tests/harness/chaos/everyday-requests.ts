import { randomUUID } from 'node:crypto';
import { codeIn, randomPhoneNumber } from '../in-process-service.js';
import type { ChaosContext, Registered } from './context.js';

// The everyday requests, each judged by its own answers and leaving nothing for after the faults:
// a code sent to a fresh number and verified, a token's referrals listed (now and then a logout),
// every notification marked read.

export function everydayRequests(ctx: ChaosContext) {
  const { report, wrong, call, untilDefinite, isAmbiguous } = ctx;

  const sendAndVerify = async () => {
    const phone = randomPhoneNumber();
    const target = { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 };
    const sendKey = randomUUID();
    const sent = await untilDefinite(() => call('loginPhone', target, { 'Idempotency-Key': sendKey }), 3);
    if (sent.status !== 200) {
      // 409 code 20: the first run's record is still held (its release failed too): come back later, as Retry-After says.
      if (sent.status !== 503 && sent.status !== 429 && !(sent.status === 409 && sent.body.error[0] === 20))
        wrong('a send was refused', sent);
      return;
    }
    const message = ctx.sns.published.filter((sms) => sms.phoneNumber === `+1${phone}`).at(-1)?.message;
    if (!message) return wrong('a send answered 200 with no SMS');
    const code = codeIn(message);
    const verifyKey = randomUUID();
    const verified = await untilDefinite(() => call('verifyOtp', { ...target, otp: code }, { 'Idempotency-Key': verifyKey }), 3);
    if (verified.status === 200) report.verified++;
    else if (verified.status === 400) wrong('the right code was refused', verified);
  };

  const listOrLogout = async (account: Registered) => {
    const list = await call('referralProgram', undefined, { Authorization: `Token ${account.token}` }, 'GET');
    if (list.status === 401 && !account.loggedOut) wrong('a live token was refused', list);
    if (Math.random() < 0.2) {
      const out = await call('logout', {}, { Authorization: `Token ${account.token}`, 'Idempotency-Key': randomUUID() });
      if (out.status === 200) account.loggedOut = true;
      // A logout answered 503 may have ended the session: the token's state is unknown from here.
      else if (out.status === 503) account.loggedOut = true;
      else wrong('a logout was refused', out);
    }
  };
  // One client at a time per account: another client's logout would make this one's 401 right.
  const listAndLogout = () => ctx.withAccount((account) => !account.loggedOut, listOrLogout);

  /** Every notification marked read, retried with its key. */
  const readAll = () =>
    ctx.withAccount(
      (account) => !account.loggedOut,
      async (account) => {
        const key = randomUUID();
        const answer = await untilDefinite(
          () => call('notificationsRead', { all: 1 }, { Authorization: `Token ${account.token}`, 'Idempotency-Key': key }),
          3,
        );
        if (answer.status === 200) report.marksRead++;
        else if (!isAmbiguous(answer)) wrong('marking read was refused', answer);
      },
    );

  return { sendAndVerify, listAndLogout, readAll };
}
