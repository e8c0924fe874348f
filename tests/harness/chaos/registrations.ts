import { randomInt, randomUUID } from 'node:crypto';
import { epochSeconds } from '../../../lib/clock.js';
import { ErrorCodes } from '../../../lib/errors.js';
import { type DeviceKeyPair, newDeviceKeyPair } from '../device-keys.js';
import { sampleRegistration } from '../in-process-service.js';
import type { ChaosContext, Registered } from './context.js';

// Registrations: half referred by an account already answered, half binding a device (for PIN
// logins later), a quarter with a proof of the phone (a code of otp_type 2) when one is had under
// the faults. Each answered 200 is sent again without a key, which must never make a second user
// (a proven one is refused for its used proof); each answered ambiguously is sent again with its
// key once the faults are off, and must come back with its first outcome, its proof used up by then.

/** A registered account from its registration's answer. */
function registeredAccount(
  data: any,
  body: Record<string, unknown>,
  referredBy: string | undefined,
  keys: DeviceKeyPair | undefined,
  answeredAt: number,
): Registered {
  return {
    userId: data.user_id,
    referralCode: data.referral_code,
    token: data.token.token,
    referredBy,
    loggedOut: false,
    device: keys && data.device_key ? { privateKey: keys.privateKey, deviceKey: data.device_key, boundBy: answeredAt } : undefined,
    loginPin: String(body.login_pin),
    wrongPins: 0,
    tokenOnDevice: Boolean(keys && data.device_key),
    phone: String(body.phone_number),
    email: typeof body.email === 'string' ? body.email.toLowerCase() : undefined,
    quietAfter: 0,
  };
}

export function registrations(ctx: ChaosContext) {
  const { registered, report, wrong, call } = ctx;
  const ambiguous: { body: Record<string, unknown>; key: string; referredBy?: string; keys?: DeviceKeyPair }[] = [];

  const register = async () => {
    const referrer = registered.length && Math.random() < 0.5 ? registered[randomInt(registered.length)] : undefined;
    // Three in four with a device: a phone change that moves the number at once takes a PIN login on one (contract 3.11, round 5).
    const keys = Math.random() < 0.75 ? newDeviceKeyPair() : undefined;
    const body = sampleRegistration({
      referral_code: referrer?.referralCode,
      parent_user_id: undefined,
      ...(keys ? { device_public_key: keys.publicKey } : {}),
    });
    if (Math.random() < 0.25) {
      const target = { dial_code: body.dial_code, phone_number: body.phone_number, user_type: body.user_type, otp_type: 2 };
      const verified = await ctx.sendAndCheck(target, {}, ctx.service);
      if (verified) {
        body.phone_verification_token = verified.body.data.verification_token;
        report.provenRegistrations++;
      }
    }
    const key = randomUUID();
    const answer = await call('userRegister', body, { 'Idempotency-Key': key });
    report.registrations++;
    if (answer.status === 200) {
      // Sent before the account is shared with the other clients: a deletion of it in between
      // would free its phone for the duplicate.
      const duplicate = await call('userRegister', body);
      const usedProof =
        body.phone_verification_token !== undefined &&
        duplicate.status === 400 &&
        duplicate.body.error?.[0] === ErrorCodes.PHONE_NOT_VERIFIED.code;
      if (duplicate.status !== 409 && duplicate.status !== 503 && !usedProof) wrong('a duplicate registration was not refused', duplicate);
      registered.push(registeredAccount(answer.body.data, body, referrer?.userId, keys, epochSeconds(ctx.service.clock)));
    } else if (ctx.isAmbiguous(answer)) {
      ambiguous.push({ body, key, referredBy: referrer?.userId, keys });
    } else {
      wrong('a fresh registration was refused', answer);
    }
  };

  /** Every ambiguous registration, retried with its key (faults off), registers, and a replay answers the same user. */
  const afterFaults = async () => {
    for (const { body, key, referredBy, keys } of ambiguous) {
      report.ambiguousRetried++;
      const answer = await ctx.untilDefinite(() => call('userRegister', body, { 'Idempotency-Key': key }), 20);
      if (answer.status !== 200) {
        wrong('an ambiguous registration retried with its key did not register', answer);
        continue;
      }
      const retried = registeredAccount(answer.body.data, body, referredBy, keys, epochSeconds(ctx.service.clock));
      registered.push(retried);
      if (keys && !retried.device) wrong('an ambiguous registration with a device came back without its device_key', answer);
      const again = await call('userRegister', body, { 'Idempotency-Key': key });
      if (again.body.data?.user_id !== retried.userId) wrong('a replay answered another user', again);
    }
  };

  return { register, afterFaults };
}
