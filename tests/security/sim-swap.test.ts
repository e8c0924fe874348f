// The SIM swap of issue 47, played step by step against DynamoDB Local (API contract 3.15 and its
// second reading): whoever receives the owner's codes gets no payment, no number and no PIN at once,
// and the owner's settled phone undoes what they started. Each attack of the review is one test.
import { decodeJwt } from 'jose';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import { updateCompanySettings } from '../../lib/companies/companies.js';
import { type Device, otpLogin, PINS, pinLogin, signUpWithDevice, strongSession, tokenWorks } from '../devices/device-helpers.js';
import { newDeviceKeyPair, signedStepUp } from '../harness/device-keys.js';
import { type Account, expectFailure, invoke, newCompany, provePhone, sampleRegistration, testService } from '../helpers.js';

const service = testService();
let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

afterEach(() => service.clock.reset());

const headers = (authorization: string) => ({ CompanyID: company.company_id, Authorization: authorization });
const post = (handler: keyof typeof service.handlers, path: string, authorization: string, body: unknown = {}) =>
  invoke(service.handlers[handler], { path, headers: headers(authorization), body });
const HOLD_SECONDS = () => service.app.config.phoneChangeHoldHours * 3600;
let reference = 0;
const payment = (pin: string) => ({
  transaction_pin: pin,
  amount: '950.00',
  currency: 'EUR',
  payee: 'Mule Ltd',
  reference: `swap-${reference++}`,
});

/** The swapper's side: an OTP login to the owner's number, binding the swapper's own key when given one. */
async function swapperLogin(account: Account, device?: ReturnType<typeof newDeviceKeyPair>) {
  const login = await otpLogin(service, company, account, device ? { device_public_key: device.publicKey, device_id: 'swap' } : {});
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  return {
    authorization: `Token ${login.body.data.token.token}`,
    deviceKey: login.body.data.device_key as string | undefined,
    acr: decodeJwt(login.body.data.token.token).acr,
  };
}

async function owner(): Promise<{ account: Account; device: Device }> {
  return signUpWithDevice(service, company);
}

describe('a SIM swapper with the owner’s codes only', () => {
  it('gets no payment in a minute: the transaction PIN reset waits, an SMS session pays nothing, and the owner’s PIN still pays', async () => {
    const { account, device } = await owner();
    const swapper = await swapperLogin(account);
    expect(swapper.acr).toBe('sms');

    const askedAt = epochSeconds(service.clock);
    const reset = await post('resetPin', '/wallet/v3/auth/reset_pin', swapper.authorization, { pin_type: 2, new_pin: '9173' });
    expect(reset.body.data).toMatchObject({ message: 'PIN reset pending', pending: 1, change_id: expect.any(String) });
    // The hold counts from the request's own second, which the clock may have left by the answer.
    expect(reset.body.data.effective_at - HOLD_SECONDS()).toBeOneOf([askedAt, askedAt + 1]);

    // Neither the swapper's PIN nor the owner's pays from the swapper's session: it is SMS-strength.
    for (const pin of ['9173', PINS.transaction_pin]) {
      const refused = await post(
        'transactionAuthorization',
        '/wallet/v3/auth/transaction_authorization',
        swapper.authorization,
        payment(pin),
      );
      expectFailure(refused, 403, 5);
      expect(refused.body.data.needs).toBe('strong');
    }
    // The owner's strong session still pays with the PIN that is still theirs.
    const strong = await strongSession(service, company, device);
    const paid = await post('transactionAuthorization', '/wallet/v3/auth/transaction_authorization', strong, payment(PINS.transaction_pin));
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  });

  it('cannot lift an SMS session’s payments past the company’s sms_payment_limit, nor pay at all while a change waits', async () => {
    const limited = await newCompany(service);
    await updateCompanySettings(service.app.table, service.clock, limited.company_id, { sms_payment_limit: { EUR: '1000' } });
    const registered = await signUpWithDevice(service, limited);
    const login = await otpLogin(service, limited, registered.account);
    const sms = `Token ${login.body.data.token.token}`;
    const pay = (pin: string) =>
      invoke(service.handlers.transactionAuthorization, {
        path: '/wallet/v3/auth/transaction_authorization',
        headers: { CompanyID: limited.company_id, Authorization: sms },
        body: payment(pin),
      });
    expect((await pay(PINS.transaction_pin)).status).toBe(200);
    // 950 + 950 passes 1000 in 24 hours.
    expect((await pay(PINS.transaction_pin)).body.data.needs).toBe('strong');
    // A change waiting: nothing from an SMS session, even within the limit.
    const held = await invoke(service.handlers.resetPin, {
      path: '/wallet/v3/auth/reset_pin',
      headers: { CompanyID: limited.company_id, Authorization: sms },
      body: { pin_type: 1, new_pin: '7391' },
    });
    expect(held.body.data.pending).toBe(1);
    service.clock.advance(24 * 3600 + 1);
    const fresh = await otpLogin(service, limited, registered.account);
    const refused = await invoke(service.handlers.transactionAuthorization, {
      path: '/wallet/v3/auth/transaction_authorization',
      headers: { CompanyID: limited.company_id, Authorization: `Token ${fresh.body.data.token.token}` },
      body: { ...payment(PINS.transaction_pin), amount: '10' },
    });
    // The reset took effect at the hold's end: no change waits now, and 10 fits the day's limit.
    expect(refused.status, JSON.stringify(refused.body)).toBe(200);
  });

  it('cannot move the number at once: a login PIN reset waits, the current PIN stays, and the phone change from the new device waits too', async () => {
    const { account, device } = await owner();
    const keys = newDeviceKeyPair();
    const swapper = await swapperLogin(account, keys);
    expect(swapper.deviceKey).toMatch(/^[0-9a-f]{32}$/);
    const reset = await post('resetPin', '/wallet/v3/auth/reset_pin', swapper.authorization, { pin_type: 1, new_pin: '6842' });
    expect(reset.body.data.pending).toBe(1);

    // The swapper's PIN is not the PIN yet; the owner's is, on the owner's device.
    const swapDevice = { privateKey: keys.privateKey, deviceKey: swapper.deviceKey! };
    expectFailure(await pinLogin(service, company, swapDevice, '6842'), 400, 17);
    expect((await pinLogin(service, company, device, PINS.login_pin)).status).toBe(200);

    // The owner's right PIN on a settled device voided the held reset (second reading of 3.15).
    service.clock.advance(HOLD_SECONDS() + 1);
    expectFailure(await pinLogin(service, company, swapDevice, '6842'), 400, 17);

    // A PIN login on a device on probation is SMS-strength: a phone change from it waits.
    const onProbation = await pinLogin(service, company, swapDevice, PINS.login_pin);
    expect(decodeJwt(onProbation.body.data.token.token).acr).toBe('sms');
    const authorization = `Token ${onProbation.body.data.token.token}`;
    const newNumber = sampleRegistration().phone_number as string;
    const proof = await provePhone(service, company, newNumber, { authorization });
    const change = await post('userPhoneChange', '/wallet/v3/user/phone/change', authorization, {
      dial_code: '+1',
      phone_number: newNumber,
      phone_verification_token: proof,
      login_pin: PINS.login_pin,
    });
    expect(change.body.data).toMatchObject({ pending: 1 });
  });

  it('leaves the owner a way back: not_me from the settled phone cancels the changes, ends the swapper’s sessions and removes the swapper’s device', async () => {
    const { account, device } = await owner();
    const swapper = await swapperLogin(account, newDeviceKeyPair());
    await post('resetPin', '/wallet/v3/auth/reset_pin', swapper.authorization, { pin_type: 1, new_pin: '6842' });
    await post('resetPin', '/wallet/v3/auth/reset_pin', swapper.authorization, { pin_type: 2, new_pin: '9173' });
    // The resets ended none of the owner's sessions.
    expect(await tokenWorks(service, company, account.authorization)).toBe(true);

    // The owner's right login PIN on the settled phone voids the held login PIN reset (pin_proven);
    // not_me cancels what is left, the transaction PIN's.
    const strong = await strongSession(service, company, device);
    const undone = await post('userSecurityNotMe', '/wallet/v3/user/security/not_me', strong);
    expect(undone.body).toEqual({
      success: 1,
      error: [],
      data: { message: expect.any(String), cancelled: 1, revoked: expect.any(Number), devices_removed: 1, passkeys_removed: 0 },
    });
    expect(await tokenWorks(service, company, swapper.authorization)).toBe(false);
    expect(await tokenWorks(service, company, strong)).toBe(true);
    service.clock.advance(HOLD_SECONDS() + 1);
    expect((await pinLogin(service, company, device, PINS.login_pin)).status).toBe(200);
    const paid = await post(
      'transactionAuthorization',
      '/wallet/v3/auth/transaction_authorization',
      await strongSession(service, company, device),
      payment(PINS.transaction_pin),
    );
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  });

  it('refuses not_me to an SMS-strength session: the swapper cannot use it against the owner', async () => {
    const { account } = await owner();
    const swapper = await swapperLogin(account);
    const refused = await post('userSecurityNotMe', '/wallet/v3/user/security/not_me', swapper.authorization);
    expectFailure(refused, 403, 5);
    expect(refused.body.data.needs).toBe('strong');
    expect(await tokenWorks(service, company, account.authorization)).toBe(true);
  });

  it('gets no fresh PIN guesses per code: an OTP login leaves a locked device locked, and the owner’s device is not locked by the swapper’s', async () => {
    const { account, device } = await owner();
    const keys = newDeviceKeyPair();
    const swapper = await swapperLogin(account, keys);
    const swapDevice = { privateKey: keys.privateKey, deviceKey: swapper.deviceKey! };
    for (let attempt = 0; attempt < 5; attempt++) await pinLogin(service, company, swapDevice, `${1110 + attempt}`);
    expectFailure(await pinLogin(service, company, swapDevice, PINS.login_pin), 400, 18);
    await swapperLogin(account, keys);
    expectFailure(await pinLogin(service, company, swapDevice, PINS.login_pin), 400, 18);
    expect((await pinLogin(service, company, device, PINS.login_pin)).status).toBe(200);
  });
});

describe('the owner’s strong session', () => {
  it('goes stale after STEP_UP_MAX_AGE_SECONDS for what needs fresh strong, and step_up signed by the device makes it fresh again, same session', async () => {
    const { device } = await owner();
    const strong = await strongSession(service, company, device);
    service.clock.advance(service.app.config.stepUpMaxAgeSeconds + 1);
    const stale = await post('changePin', '/wallet/v3/auth/change_pin', strong, {
      pin_type: 1,
      current_pin: PINS.login_pin,
      new_pin: '8052',
    });
    expectFailure(stale, 403, 5);
    expect(stale.body.data.needs).toBe('strong_fresh');

    const body = signedStepUp(device, company.company_id, PINS.login_pin, epochSeconds(service.clock));
    const steppedAt = epochSeconds(service.clock);
    const stepped = await post('stepUp', '/wallet/v3/auth/step_up', strong, body);
    expect(stepped.status, JSON.stringify(stepped.body)).toBe(200);
    const claims = decodeJwt(stepped.body.data.token.token);
    expect(claims).toMatchObject({ acr: 'strong', sid: decodeJwt(strong.slice('Token '.length)).sid });
    expect(claims.auth_time).toBeOneOf([steppedAt, steppedAt + 1]);
    // The same signed body again: its nonce counted once.
    expectFailure(await post('stepUp', '/wallet/v3/auth/step_up', strong, body), 401, 4);

    const fresh = `Token ${stepped.body.data.token.token}`;
    const changed = await post('changePin', '/wallet/v3/auth/change_pin', fresh, {
      pin_type: 1,
      current_pin: PINS.login_pin,
      new_pin: '8052',
    });
    expect(changed.body.data).toMatchObject({ message: 'PIN changed' });
  });

  it('refuses step_up to an SMS-strength session, and one signed by a device on probation', async () => {
    const { account } = await owner();
    const keys = newDeviceKeyPair();
    const swapper = await swapperLogin(account, keys);
    const body = signedStepUp(
      { privateKey: keys.privateKey, deviceKey: swapper.deviceKey! },
      company.company_id,
      PINS.login_pin,
      epochSeconds(service.clock),
    );
    const refused = await post('stepUp', '/wallet/v3/auth/step_up', swapper.authorization, body);
    expect([401, 403]).toContain(refused.status);
    expect(refused.body.success).toBe(0);
  });

  it('settles a device on probation with devices/approve: its PIN login is then strong', async () => {
    const { account, device } = await owner();
    const keys = newDeviceKeyPair();
    const second = await swapperLogin(account, keys);
    const secondDevice = { privateKey: keys.privateKey, deviceKey: second.deviceKey! };
    expect(decodeJwt((await pinLogin(service, company, secondDevice, PINS.login_pin)).body.data.token.token).acr).toBe('sms');

    // Only the owner's strong session approves; the new device's own session cannot.
    expectFailure(
      await post('devicesApprove', '/wallet/v3/auth/devices/approve', second.authorization, { device_key: second.deviceKey }),
      403,
      5,
    );
    const strong = await strongSession(service, company, device);
    const approved = await post('devicesApprove', '/wallet/v3/auth/devices/approve', strong, { device_key: second.deviceKey });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(decodeJwt((await pinLogin(service, company, secondDevice, PINS.login_pin)).body.data.token.token).acr).toBe('strong');
  });

  it('keeps a device on probation past CREDENTIAL_PROBATION_HOURS while the owner logs in strongly meanwhile', async () => {
    const { account, device } = await owner();
    const keys = newDeviceKeyPair();
    const swapper = await swapperLogin(account, keys);
    const swapDevice = { privateKey: keys.privateKey, deviceKey: swapper.deviceKey! };
    service.clock.advance(3600);
    await strongSession(service, company, device);
    service.clock.advance(service.app.config.credentialProbationHours * 3600);
    expect(decodeJwt((await pinLogin(service, company, swapDevice, PINS.login_pin)).body.data.token.token).acr).toBe('sms');
  });
});
