import { randomInt } from 'node:crypto';
import { decodeJwt } from 'jose';
import { epochSeconds } from '../../../lib/clock.js';
import type { Company } from '../../../lib/companies/companies.js';
import { signedLoginPin } from '../device-keys.js';
import { type Answer, type InProcessService, randomPhoneNumber } from '../in-process-service.js';
import { employeeWithDevice, type StaffDevice, staffPinLogin, strongSession } from '../staff-members.js';
import type { ChaosContext, Registered } from './context.js';
import { errorOf, is, jitter, overlapped, PREPARE_ROUNDS, type RaceTools, type Sent } from './pending-changes.js';

// Assisted recovery under faults (issue 39; contract 3.14): a support employee starts a recovery of
// an account with a bound device to a fresh number, an admin approves it (PHONE_CHANGE_HOLD_HOURS
// is 0 in the run: due at once), then at once the completing login to the new number, 2 or 3 PIN
// logins of the user on their device, and now and then the user's own cancel on a live session.
// The move removes every device and ends every session: a PIN login that won against it was ended
// by it, one after it is refused (401 code 4); a cancel wins or is refused, never both. The table
// check (tests/harness/phone-change-check.ts) finds a recovered user with a device or an older session left.

/** A member of the back office the run made: their device, and a strong session (a PIN login on it, renewed before its access token runs out). */
interface StaffMember {
  userId: string;
  device: StaffDevice;
  authorization: string;
  /** When its session began (ms, Date.now()). */
  since: number;
  renewing?: Promise<void>;
}

/**
 * The company's back office for the run, made before the faults are on (as tests/admin/staff.ts
 * makes it): a support employee who starts recoveries and an admin who approves them (another
 * employee than the starter), each with a role set by the operator, a device bound at
 * registration, and a strong session begun by a PIN login on it (contract 3.14, round 6).
 */
export async function chaosStaff(service: InProcessService, company: Company) {
  const member = async (role: 'support' | 'admin'): Promise<StaffMember> => {
    const employee = await employeeWithDevice(service, company, role);
    return {
      userId: employee.userId,
      device: employee.device,
      authorization: await strongSession(service, company, employee),
      since: Date.now(),
    };
  };
  return { support: await member('support'), admin: await member('admin') };
}

export type ChaosStaff = Awaited<ReturnType<typeof chaosStaff>>;

/** Recoveries racing the user's PIN logins as a flow of the run; `atLeast` are wanted first (ChaosOptions.pendingRaces). */
export function phoneRecoveries(ctx: ChaosContext, tools: RaceTools, staff: ChaosStaff, { atLeast }: { atLeast: number }) {
  const { report, wrong, isAmbiguous, service, interval } = ctx;
  const figures = report.pendingChanges.recoveries;
  const { send, either, settleOrPark, loginCodeTo } = tools;
  let starting = 0;
  for (const member of [staff.support, staff.admin]) ctx.employees.add(member.userId);

  /**
   * The member's Authorization, logged in again by PIN on their device once half its access token's
   * life is gone (ACCESS_TOKEN_TTL_SECONDS; the back office takes a strong session begun under
   * ADMIN_SESSION_HOURS ago, and for an approval one proven under STEP_UP_MAX_AGE_SECONDS ago).
   */
  const sessionOf = async (member: StaffMember) => {
    if (Date.now() - member.since > (ctx.config.accessTokenTtlSeconds * 1000) / 2) {
      member.renewing ??= (async () => {
        const login = await send('loginPin', staffPinLogin(service, ctx.companyId, member.device), {
          via: service,
          rounds: PREPARE_ROUNDS,
        });
        if (login.answer.status === 200) {
          member.authorization = `Token ${login.answer.body.data.token.token}`;
          member.since = Date.now();
        }
      })().finally(() => {
        member.renewing = undefined;
      });
      await member.renewing;
    }
    return member.authorization;
  };

  const eligible = (account: Registered) => account.device !== undefined && !account.pinLocked;

  /** A PIN login on the account's device, racing the move. */
  const pinLogin = async (account: Registered, device: NonNullable<Registered['device']>) => {
    await jitter(40);
    const body = signedLoginPin(device, ctx.companyId, account.loginPin, { timestamp: epochSeconds(service.clock) });
    figures.pinLogins++;
    return send('loginPin', body);
  };

  const recoveryRace = async (account: Registered, fire: () => void) => {
    const device = account.device!;
    // The user's live session, which may cancel the recovery: a PIN login on the device just now.
    if (!(await ctx.freshPinLogin(account, PREPARE_ROUNDS))) return;
    const userSession = `Token ${account.token}`;
    // Only a strong one on a credential older than the recovery may (contract 3.15): a device still on
    // probation (bound by a code lately) begins an SMS-strength session, and one bound in the second
    // the recovery starts is not older than it; either cancel is refused 403 whichever way the race goes, so it sends none.
    const mayCancel = decodeJwt(account.token).acr === 'strong' && device.boundBy < epochSeconds(service.clock);
    const number = randomPhoneNumber();
    const reason = `chaos ticket ${randomInt(1e6)}`;
    const started = await send(
      'adminUsersPhoneRecover',
      { user_id: account.userId, dial_code: '+1', phone_number: number, reason },
      { authorization: await sessionOf(staff.support), rounds: PREPARE_ROUNDS },
    );
    if (isAmbiguous(started.answer)) {
      // Started or not (awaiting approval, never due), it waits for its retry; the account parked till then.
      await settleOrPark(account, [started], async () => {
        if (started.answer.status === 200) figures.started++;
        else wrong('a recovery retried with its key was refused', started.answer);
      });
      return;
    }
    if (started.answer.status !== 200) return void wrong('a recovery of an active user to a fresh number was refused', started.answer);
    figures.started++;
    const changeId = started.answer.body.data.change_id as string;
    const approved = await send(
      'adminUsersPhoneApprove',
      { user_id: account.userId, change_id: changeId, reason },
      { authorization: await sessionOf(staff.admin), rounds: PREPARE_ROUNDS },
    );
    // Approved or maybe: the number it moves the user to is checked for devices and older sessions.
    if (approved.answer.status === 200 || isAmbiguous(approved.answer))
      ctx.answered.recoveries.push({ userId: account.userId, toE164: `+1${number}` });
    if (isAmbiguous(approved.answer)) {
      await settleOrPark(account, [approved], async () => {
        if (approved.answer.status === 200) figures.approved++;
        else wrong('an approval retried with its key was refused', approved.answer);
      });
      return;
    }
    if (approved.answer.status !== 200)
      return void wrong('an admin’s approval of a support employee’s recovery was refused', approved.answer);
    figures.approved++;
    // Due at once (a hold of 0): login_phone sends the new number a code as if it were registered.
    const code = await loginCodeTo(number, either());
    const cancelling = mayCancel && Math.random() < 0.4;
    const logins = randomInt(2, 4);
    fire();
    const [completed, cancel, ...pins] = await Promise.all([
      code
        ? (async () => {
            await jitter(40);
            return send('verifyOtp', { dial_code: '+1', phone_number: number, user_type: 2, otp_type: 1, otp: code });
          })()
        : undefined,
      cancelling
        ? (async () => {
            await jitter(40);
            return send('userPhoneChangeCancel', { change_id: changeId }, { authorization: userSession });
          })()
        : undefined,
      ...Array.from({ length: logins }, () => pinLogin(account, device)),
    ]);
    if ([cancel, ...pins].some((other) => overlapped(completed, other))) figures.overlapped++;
    await settleOrPark(account, [completed, cancel, ...pins], async () => settle(account, { number, completed, cancel, pins }));
  };

  /** What the answers of one race say, together; the account takes its outcome. */
  const settle = async (
    account: Registered,
    { number, completed, cancel, pins }: { number: string; completed?: Sent; cancel?: Sent; pins: Sent[] },
  ) => {
    const moved = completed?.answer.status === 200;
    const cancelled = cancel?.answer.status === 200;
    if (moved && cancelled) return wrong(`user ${account.userId}'s recovery was both cancelled and completed`);
    if (moved) {
      figures.completed++;
      // Gone (404 code 6), or its session ended by the move (401 code 4).
      if (cancel && !is(cancel.answer, 404, 6) && !is(cancel.answer, 401, 4)) wrong('a cancel that lost to the recovery', cancel.answer);
    } else if (cancelled) {
      figures.cancelledByUser++;
      if (completed && !is(completed.answer, 400, 10)) wrong('a completing login that lost to the cancel', completed.answer);
    } else if (completed || cancel) {
      return wrong(
        `user ${account.userId}'s recovery was neither completed (${completed ? errorOf(completed.answer) : 'no code'}) nor cancelled`,
        cancel?.answer,
      );
    }
    let pinToken: string | undefined;
    for (const pin of pins) {
      if (pin.answer.status === 200) {
        pinToken = pin.answer.body.data.token.token;
        if (moved) figures.pinLoginsEnded++;
      } else if (is(pin.answer, 401, 4) && (moved || pin.ambiguous)) {
        // The device removed by the move (or, retried after the faults, its timestamp gone stale).
        figures.pinLoginsRefused++;
      } else wrong(`a PIN login racing a recovery ${moved ? 'that moved the account' : 'that did not'}`, pin.answer);
    }
    if (moved) {
      account.phone = number;
      account.device = undefined;
      account.tokenOnDevice = false;
      account.loggedOut = false;
      account.token = completed!.answer.body.data.token.token;
      account.quietAfter = service.clock.now() + interval * 1000;
      ctx.recordOtpLogin(completed!.answer, `+1${number}`);
      // A PIN login's session that won against the move was ended by it (the table check looks at every one).
      for (const pin of pins.filter((each) => each.answer.status === 200)) {
        const answer: Answer = await ctx.call(
          'referralProgram',
          undefined,
          { Authorization: `Token ${pin.answer.body.data.token.token}` },
          'GET',
        );
        if (answer.status === 200) wrong(`user ${account.userId}'s PIN login session outlived the recovery that moved the account`);
      }
    } else if (pinToken) {
      account.token = pinToken;
      account.tokenOnDevice = true;
      account.loggedOut = false;
    }
  };

  const flow = () =>
    ctx.withAccount(eligible, async (account) => {
      figures.attempts++;
      starting++;
      let fired = false;
      try {
        await recoveryRace(account, () => {
          fired = true;
          starting--;
          figures.races++;
        });
      } finally {
        if (!fired) starting--;
      }
    });

  /** Fewer than `atLeast` have started, whether or not an account is free for one. */
  const asked = () => figures.races + starting < atLeast;
  /** The flow while asked for and an account is free for one. */
  const wanted = () => (asked() && ctx.registered.some((account) => ctx.isFree(account) && eligible(account)) ? flow : undefined);

  return { flow, asked, wanted };
}
