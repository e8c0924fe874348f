import { epochSeconds } from '../../../lib/clock.js';
import { SecurityEvent } from '../../../lib/notifications/security-notifications.js';
import {
  NOTIFICATION_PREFIX,
  pendingChangeKey,
  phoneClaimKey,
  pinTriesPrefix,
  sessionKey,
  USER_SORT_KEY,
  userDeviceKey,
  userKey,
} from '../../../lib/store/keys.js';
import { PIN_VERSION_ATTRIBUTE, type PinType } from '../../../lib/store/pin-store.js';
import { getUser } from '../../../lib/store/user-store.js';
import { newDeviceKeyPair, signedLoginPin } from '../device-keys.js';
import { randomPhoneNumber, sessionIdOf } from '../in-process-service.js';
import { itemId, type StoredItem } from '../table-snapshot.js';
import { type ChaosContext, type Registered, sleep } from './context.js';
import { is, jitter, overlapped, PREPARE_ROUNDS, type RaceTools, type Sent } from './pending-changes.js';

// A SIM swapper against the owner (issue 47; contract 3.15). The account has a device bound at
// registration (settled) and the owner a fresh strong session (a PIN login on it). The swapper,
// who receives every code to the number, logs in by OTP (now and then binding a device of its own,
// and guessing a wrong login PIN on it), proves a new number, then at once asks the held changes:
// reset_pin of either PIN, the phone change with the login PIN, the removal of the owner's device;
// and logs in by OTP once more. Meanwhile the owner cancels the first change answered, calls
// not_me, logs in by PIN with the right PIN and lists the devices. PHONE_CHANGE_HOLD_HOURS is 0 in
// the run (run.ts): each change is due at once, so the owner's PIN login and device list race the
// changes' completions too (the login PIN reset put in place, the device removal done).
// Afterwards the table (`check`) shows nothing half-done.

/** The PINs the swapper sets: neither the registration's (2580, 1397) nor each other, nor guessable. */
const SWAPPER_LOGIN_PIN = '4826';
const SWAPPER_TRANSACTION_PIN = '7391';
/** A login PIN the swapper guesses wrong on its own device before the race: a try a reset must clear. */
const GUESSED_PIN = '9064';

type HeldKind = 'login_pin' | 'transaction_pin' | 'phone' | 'device_remove';

/** One race as answered, for the table check. */
interface SwapRace {
  account: Registered;
  ownerDevice: string;
  newNumber: string;
  /** The PIN versions before the race. */
  versionsBefore: Record<PinType, number>;
  /** Held changes answered 200 `pending: 1`, by kind. */
  held: Partial<Record<HeldKind, string>>;
  /** The change the owner's cancel was answered 200 for. */
  cancelled?: string;
  /** The swapper's sessions, and when the login that began each was answered (Date.now()). */
  swapperSessions: { sid: string; answeredAt: number }[];
  /** not_me answered 200: when it was first sent. */
  notMeSentAt?: number;
  /** Requests of the race that compared the login PIN and were not answered 200: each may have left a try. */
  loginPinMisses: number;
  /** The owner's PIN login refused its right PIN (a reset in place first), or its device (the removal done first). */
  ownerPinRefused: boolean;
  ownerDeviceRefused: boolean;
  phoneChangePinRefused: boolean;
}

export function simSwapRaces(ctx: ChaosContext, tools: RaceTools, { atLeast }: { atLeast: number }) {
  const { report, wrong, service, companyId } = ctx;
  const figures = report.swaps;
  const { send, settleOrPark, loginCodeTo } = tools;
  const races: SwapRace[] = [];
  let starting = 0;
  const eligible = (account: Registered) =>
    account.device !== undefined && !account.pinLocked && account.wrongPins === 0 && account.quietAfter <= service.clock.now();

  /** The user's PIN versions, read (strongly) through the faults: undefined when every try failed. */
  const versionsOf = async (userId: string): Promise<Record<PinType, number> | undefined> => {
    for (let round = 0; round < PREPARE_ROUNDS * 2; round++) {
      try {
        const user = await getUser(service.app.table, companyId, userId, true);
        if (!user) return undefined;
        return {
          login: Number(user[PIN_VERSION_ATTRIBUTE.login] ?? 0),
          transaction: Number(user[PIN_VERSION_ATTRIBUTE.transaction] ?? 0),
        };
      } catch {
        await sleep(100);
      }
    }
    return undefined;
  };

  const race = async (account: Registered, fire: () => void) => {
    const ownerDevice = account.device!;
    // Whatever happens next, the account's PINs, devices and sessions are no longer the run's to know.
    account.swapped = true;
    account.quietAfter = service.clock.now() + 2 * ctx.interval * 1000;
    const versionsBefore = await versionsOf(account.userId);
    if (!versionsBefore) return;
    if (!(await ctx.freshPinLogin(account, PREPARE_ROUNDS))) return;
    account.loggedOut = true;
    const owner = `Token ${account.token}`;

    // The swapper's OTP login, binding a device of its own one time in two.
    const swapperKeys = Math.random() < 0.5 ? newDeviceKeyPair() : undefined;
    const target = { dial_code: '+1', phone_number: account.phone, user_type: 2, otp_type: 1 };
    const code = await loginCodeTo(account.phone, service);
    if (!code) return;
    const login = await send(
      'verifyOtp',
      { ...target, otp: code, ...(swapperKeys ? { device_public_key: swapperKeys.publicKey } : {}) },
      { via: service, rounds: PREPARE_ROUNDS },
    );
    if (login.answer.status !== 200) {
      if (!ctx.isAmbiguous(login.answer)) wrong('the swapper’s OTP login with the right code was refused', login.answer);
      return;
    }
    ctx.recordOtpLogin(login.answer, `+1${account.phone}`);
    const swapper = `Token ${login.answer.body.data.token.token}`;
    const swapperSessions = [{ sid: sessionIdOf(swapper), answeredAt: login.ambiguous ? Number.POSITIVE_INFINITY : login.endedAt }];
    const swapperDevice: string | undefined = login.answer.body.data.device_key;
    // The swapper guesses the login PIN on its own device: one wrong try on that device's tally. One
    // answered ambiguously may still land late, after a reset: it then counts as a miss of the race's.
    let guessLate = 0;
    if (swapperKeys && swapperDevice) {
      const body = signedLoginPin({ privateKey: swapperKeys.privateKey, deviceKey: swapperDevice }, companyId, GUESSED_PIN, {
        timestamp: epochSeconds(service.clock),
      });
      const guess = await send('loginPin', body, { via: service, rounds: PREPARE_ROUNDS });
      if (guess.ambiguous) guessLate = 1;
      else if (!is(guess.answer, 400, 17)) wrong('a wrong login PIN on a device on probation', guess.answer);
    }
    const newNumber = randomPhoneNumber();
    const proof = await ctx.sendAndCheck(
      { dial_code: '+1', phone_number: newNumber, user_type: 2, otp_type: 2 },
      { Authorization: swapper },
      service,
      { pastTheEnd: true, rounds: PREPARE_ROUNDS },
    );
    if (!proof) return;
    // A second login code, verified in the race, through the container one interval ahead (one code per interval to a number).
    const secondCode = await loginCodeTo(account.phone, ctx.ahead[0]!);

    fire();
    let firstHeld: (id: string) => void = () => undefined;
    const heldAnswered = new Promise<string | undefined>((resolve) => {
      firstHeld = resolve;
    });
    const asHeld = async (sending: Promise<Sent>) => {
      const sent = await sending;
      if (sent.answer.status === 200 && sent.answer.body.data.pending === 1) firstHeld(sent.answer.body.data.change_id);
      return sent;
    };
    const later = async <T>(thing: () => Promise<T>) => {
      await jitter(40);
      return thing();
    };
    const swapperRequests = Promise.all([
      later(() => asHeld(send('resetPin', { pin_type: 1, new_pin: SWAPPER_LOGIN_PIN }, { authorization: swapper }))),
      later(() => asHeld(send('resetPin', { pin_type: 2, new_pin: SWAPPER_TRANSACTION_PIN }, { authorization: swapper }))),
      later(() =>
        asHeld(
          send(
            'userPhoneChange',
            {
              dial_code: '+1',
              phone_number: newNumber,
              phone_verification_token: proof.body.data.verification_token,
              login_pin: account.loginPin,
            },
            { authorization: swapper },
          ),
        ),
      ),
      later(() => asHeld(send('devicesRemove', { device_key: ownerDevice.deviceKey }, { authorization: swapper }))),
      secondCode ? later(() => send('verifyOtp', { ...target, otp: secondCode }, { via: ctx.ahead[0]! })) : undefined,
    ]);
    void swapperRequests.then(() => firstHeld(''));
    const [[loginReset, transactionReset, phoneChange, removal, secondLogin], cancel, notMe, ownerLogin, listing] = await Promise.all([
      swapperRequests,
      (async () => {
        const changeId = await heldAnswered;
        return changeId
          ? { changeId, sent: await send('userChangesCancel', { change_id: changeId }, { authorization: owner }) }
          : undefined;
      })(),
      // As the owner's cancel, once the first change is answered: either may come first.
      (async () => {
        await heldAnswered;
        return later(() => send('userSecurityNotMe', {}, { authorization: owner }));
      })(),
      later(() =>
        send('loginPin', signedLoginPin(ownerDevice, companyId, account.loginPin, { timestamp: epochSeconds(service.clock) }), {
          via: service,
        }),
      ),
      later(() => ctx.call('devices', undefined, { Authorization: owner }, 'GET')),
    ]);
    if (overlapped(notMe, phoneChange) || overlapped(notMe, loginReset) || overlapped(ownerLogin, loginReset)) figures.overlapped++;

    const sent = [loginReset, transactionReset, phoneChange, removal, secondLogin, cancel?.sent, notMe, ownerLogin];
    await settleOrPark(account, sent, async () => {
      const held: SwapRace['held'] = {};
      const heldOr = (kind: HeldKind, each: Sent, refusals: [number, number][]) => {
        if (each.answer.status === 200 && each.answer.body.data.pending === 1) {
          held[kind] = each.answer.body.data.change_id;
          figures.held++;
        } else if (!refusals.some(([status, code]) => is(each.answer, status, code)))
          wrong(`the swapper’s ${each.name} (${kind}) from an OTP session`, each.answer);
      };
      // Its session ended first (not_me, a PIN put in place): 401 code 4.
      heldOr('login_pin', loginReset, [[401, 4]]);
      heldOr('transaction_pin', transactionReset, [[401, 4]]);
      // Also the login PIN compared after the swapper's own reset was put in place: wrong (400 code 17).
      heldOr('phone', phoneChange, [
        [401, 4],
        [400, 17],
      ]);
      heldOr('device_remove', removal, [[401, 4]]);
      if (secondLogin?.answer.status === 200) {
        ctx.recordOtpLogin(secondLogin.answer, `+1${account.phone}`);
        // Answered ambiguously first, its session may have begun as late as its retry: after not_me, as far as the run knows.
        const answeredAt = secondLogin.ambiguous ? Date.now() : secondLogin.endedAt;
        swapperSessions.push({ sid: sessionIdOf(`Token ${secondLogin.answer.body.data.token.token}`), answeredAt });
      } else if (secondLogin) wrong('the swapper’s second OTP login with the right code', secondLogin.answer);
      // The change done or ended first (404 code 6), or the owner's session ended first (401 code 4).
      const cancelled = cancel?.sent.answer.status === 200 ? cancel.changeId : undefined;
      if (cancelled) figures.cancelled++;
      else if (cancel && !is(cancel.sent.answer, 404, 6) && !is(cancel.sent.answer, 401, 4))
        wrong('the owner’s cancel of a held change', cancel.sent.answer);
      // The owner's session ended first (the device removal done, a PIN put in place), or older than fresh: 401, 403 code 5.
      if (notMe.answer.status === 200) figures.notMe++;
      else if (!is(notMe.answer, 401, 4) && !is(notMe.answer, 403, 5)) wrong('the owner’s not_me', notMe.answer);
      if (ownerLogin.answer.status === 200) figures.ownerLogins++;
      else if (!is(ownerLogin.answer, 400, 17) && !is(ownerLogin.answer, 401, 4))
        wrong('the owner’s PIN login with the right PIN on the settled device', ownerLogin.answer);
      // A read under the run's faults may answer 503 code 16 (retry later), in the envelope.
      if (listing.status !== 200 && !is(listing, 401, 4) && !is(listing, 503, 16)) wrong('the owner’s device list', listing);
      races.push({
        account,
        ownerDevice: ownerDevice.deviceKey,
        newNumber,
        versionsBefore,
        held,
        ...(cancelled ? { cancelled } : {}),
        swapperSessions,
        ...(notMe.answer.status === 200 ? { notMeSentAt: notMe.startedAt } : {}),
        loginPinMisses: guessLate + [phoneChange, ownerLogin].filter((each) => each.answer.status !== 200 || each.ambiguous).length,
        ownerPinRefused: is(ownerLogin.answer, 400, 17),
        ownerDeviceRefused: is(ownerLogin.answer, 401, 4),
        phoneChangePinRefused: is(phoneChange.answer, 400, 17),
      });
    });
  };

  /** Counts a race picked, and as starting until it fires, so that the races wanted are not picked twice. */
  const swap = async (account: Registered) => {
    figures.attempts++;
    starting++;
    let fired = false;
    try {
      await race(account, () => {
        fired = true;
        starting--;
        figures.races++;
      });
    } finally {
      if (!fired) starting--;
    }
  };

  const flow = () => ctx.withAccount(eligible, swap);
  /** Fewer than `atLeast` races have started, whether or not an account is free for one. */
  const asked = () => figures.races + starting < atLeast;
  /** The flow while asked for and an account is free for one. */
  const wanted = () => (asked() && ctx.registered.some((account) => ctx.isFree(account) && eligible(account)) ? flow : undefined);

  /**
   * Over the table, for each race settled: every held change answered is live, cancelled (by the
   * owner: their cancel answered 200 for it), ended by not_me or by a right PIN, void, or done, each
   * end with its notice; a PIN reset done moved the PIN's version (and nothing else did) and cleared
   * its tallies (the swapper's guess gone: no more tries than the race's own misses); the owner's
   * device listed unless its removal is done; no swapper session begun before a not_me that
   * answered 200 still live; the number claimed by the user alone, the new one by no one.
   */
  const check = (items: StoredItem[]) => {
    const now = epochSeconds(service.clock);
    for (const raced of races) {
      const problems: string[] = [];
      const { userId } = raced.account;
      const { pk } = userKey(companyId, userId);
      const partition = items.filter((item) => item.pk === pk);
      const bySk = new Map(partition.map((item) => [item.sk, item]));
      const user = bySk.get(USER_SORT_KEY);
      if (!user) {
        problems.push('is not stored');
      } else {
        const notices = (event: number) =>
          partition.filter((item) => item.sk.startsWith(NOTIFICATION_PREFIX) && Number(item.notification_event_type) === event).length;
        const done = new Set<HeldKind>();
        for (const [kind, changeId] of Object.entries(raced.held) as [HeldKind, string][]) {
          const item = bySk.get(pendingChangeKey(companyId, userId, kind).sk);
          if (item && item.change_id !== changeId) {
            problems.push(`its held ${kind} change ${changeId} was replaced by ${item.change_id}`);
            continue;
          }
          if (!item) {
            if (raced.cancelled === changeId) problems.push(`its ${kind} change ${changeId}, answered cancelled, is done`);
            else done.add(kind);
            continue;
          }
          const ended = item.ended_reason as string | undefined;
          if (raced.cancelled === changeId && ended !== 'cancelled')
            problems.push(`its ${kind} change ${changeId}, answered cancelled, is ${ended ?? 'live'}`);
          if (ended === undefined) continue;
          if (ended === 'cancelled' || ended === 'pin_proven') {
            if (!notices(SecurityEvent.PHONE_CHANGE_CANCELLED))
              problems.push(`its ${kind} change ended ${ended} with no notice ${SecurityEvent.PHONE_CHANGE_CANCELLED}`);
          } else if (ended === 'not_me') {
            if (!notices(SecurityEvent.SECURED_BY_YOU))
              problems.push(`its ${kind} change ended by not_me with no notice ${SecurityEvent.SECURED_BY_YOU}`);
          } else if (ended !== 'void') problems.push(`its ${kind} change ended ${ended}`);
        }
        for (const [pinType, kind] of [
          ['login', 'login_pin'],
          ['transaction', 'transaction_pin'],
        ] as const) {
          const moved = Number(user[PIN_VERSION_ATTRIBUTE[pinType]] ?? 0) - raced.versionsBefore[pinType];
          if (moved !== (done.has(kind) ? 1 : 0))
            problems.push(`its ${pinType} PIN version moved ${moved} with its reset ${done.has(kind) ? 'done' : 'not done'}`);
          if (!done.has(kind)) continue;
          figures.resetsDone++;
          if (!notices(SecurityEvent.PIN_RESET)) problems.push(`its ${pinType} PIN reset is done with no notice`);
          const tries = partition
            .filter((item) => item.sk.startsWith(pinTriesPrefix(pinType)))
            .reduce((sum, item) => sum + ((item.tries as Set<string> | undefined)?.size ?? 0), 0);
          const allowed = pinType === 'login' ? raced.loginPinMisses : 0;
          if (tries > allowed)
            problems.push(`its ${pinType} PIN reset is done, its tallies keep ${tries} tries (the race missed ${allowed})`);
        }
        if ((raced.ownerPinRefused || raced.phoneChangePinRefused) && !done.has('login_pin'))
          problems.push('the right login PIN was refused (400 code 17) with no reset of it done');
        if (done.has('phone') && user.phone_e164 !== `+1${raced.newNumber}`)
          problems.push(`its phone change is gone, yet it is on ${user.phone_e164}`);
        const deviceListed = bySk.has(userDeviceKey(companyId, userId, raced.ownerDevice).sk);
        if (done.has('device_remove')) {
          figures.devicesRemoved++;
          if (deviceListed) problems.push('its settled device is listed though its removal is done');
        } else if (!deviceListed) problems.push('its settled device is gone with no removal of it done');
        if (raced.ownerDeviceRefused && !done.has('device_remove'))
          problems.push('the owner’s PIN login was refused its settled device (401) with no removal of it done');
        if (raced.notMeSentAt !== undefined) {
          for (const { sid, answeredAt } of raced.swapperSessions) {
            if (answeredAt >= raced.notMeSentAt) continue;
            const session = bySk.get(sessionKey(companyId, userId, sid).sk);
            if (session && session.ended_reason === undefined && Number(session.expires_at) > now)
              problems.push(`the swapper’s session ${sid}, begun before not_me, is live`);
          }
        }
        const claimOf = (phoneE164: string) => items.find((item) => itemId(item) === itemId(phoneClaimKey(companyId, phoneE164, 2)));
        const claim = claimOf(String(user.phone_e164));
        if (claim?.user_id !== userId) problems.push(`its number ${user.phone_e164} is claimed by ${claim?.user_id ?? 'no one'}`);
        const other = user.phone_e164 === `+1${raced.newNumber}` ? `+1${raced.account.phone}` : `+1${raced.newNumber}`;
        const left = claimOf(other);
        if (left?.user_id === userId) problems.push(`it still holds the claim of ${other}`);
      }
      figures.checked++;
      figures.problems += problems.length;
      for (const problem of problems) wrong(`SIM swap: user ${userId} ${problem}`);
    }
  };

  return { flow, asked, wanted, check };
}
