// The security warnings in the company's language (issue 47, API contract 3.15 and 7), against
// DynamoDB Local: an operator sets a warning's text per language with company:update --warning-text
// KIND:LANG=TEXT (a held change's kind or new_device; no code, no digits that read as one, {brand}
// the company's name, sized with the name in); a held change and a device bound by an OTP login warn
// the number in the text of the request's Accept-Language, else of the company's default language,
// else in the built-in English, as the phone change's warning is chosen. The phone change's texts
// stored by --phone-change-text before (sms_text.phone_change_texts) are the phone warning's.

import { beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { BUILT_IN_WARNING_TEXTS, type WarningKey, warningMessage } from '../../lib/companies/security-warning-texts.js';
import { getCompany, updateCompany as storeCompany } from '../../lib/store/company-store.js';
import { main as createCompany } from '../../scripts/create-company.js';
import type { OperatorMain } from '../../scripts/operator-app.js';
import { main as updateCompany } from '../../scripts/update-company.js';
import { PINS, signUpWithDevice } from '../devices/device-helpers.js';
import { newDeviceKeyPair } from '../harness/device-keys.js';
import {
  type Account,
  codeIn,
  invoke,
  newCompany,
  type OperatorOutcome,
  outboxMessages,
  provePhone,
  randomPhoneNumber,
  runOperator,
  testEnvironment,
  testService,
} from '../helpers.js';

const env = { ...process.env, ...testEnvironment() };
const service = testService({}, { serverSecret: env.SERVER_SECRET });

const NAME = 'Chai Pay';
const PIN_HINDI = 'आपके {brand} खाते के लिए नया लॉगिन PIN माँगा गया। यह आपने नहीं किया तो {brand} ऐप खोलकर रद्द करें।';
const PIN_ENGLISH = 'Someone asked for a new {brand} login PIN. Not you? Open the {brand} app and cancel it.';
const DEVICE_HINDI = 'आपके {brand} खाते में कोड से एक नया फ़ोन जुड़ा। यह आप नहीं थे तो {brand} ऐप में "मैं नहीं" चुनें।';
const PHONE_HINDI = 'आपका {brand} खाता दूसरे नंबर पर ले जाने को कहा गया। आपने नहीं कहा? तुरंत {brand} से संपर्क करें।';
const filled = (text: string, name = NAME) => warningMessage(text, name);
const builtIn = (warning: WarningKey, company: Company) => warningMessage(BUILT_IN_WARNING_TEXTS[warning], company.name);

const run = (main: OperatorMain, args: string[]): Promise<OperatorOutcome> => runOperator(main, args, env);

async function command(main: OperatorMain, args: string[]): Promise<OperatorOutcome> {
  const outcome = await run(main, args);
  expect(outcome.code, outcome.stderr).toBe(0);
  return outcome;
}

/** company:update expected to refuse: exit 2, nothing on stdout, the reason on stderr. */
async function refused(args: string[]): Promise<string> {
  const failure = await run(updateCompany, args);
  expect(failure.code).toBe(2);
  expect(failure.stdout).toBe('');
  return failure.stderr;
}

/** A company created by the operator command with this name (the tests size texts with it). */
async function namedCompany(name = NAME): Promise<Company> {
  const { last } = await command(createCompany, ['--name', name]);
  return (await getCompany(service.app.table, last.company_id))!;
}

const numberOf = (account: Account) => `+1${account.registration.phone_number}`;
const outbox = (phoneE164: string) => outboxMessages(service.app.config.sms.outboxFile, phoneE164);
const languageHeader = (acceptLanguage: string | undefined): Record<string, string> =>
  acceptLanguage ? { 'Accept-Language': acceptLanguage } : {};

/** The one message the number got while `act` ran: the warning (it carries no code). */
async function toldWhile(phoneE164: string, act: () => Promise<void>): Promise<string> {
  const before = outbox(phoneE164).length;
  await act();
  const told = outbox(phoneE164);
  expect(told).toHaveLength(before + 1);
  expect(() => codeIn(told.at(-1))).toThrow('no code');
  return told.at(-1)!;
}

/**
 * A customer with a settled device logs in by OTP on a new phone with this Accept-Language (the
 * new_device warning), then resets the login PIN from that session (held: the login_pin warning).
 */
async function warningsOfPinReset(company: Company, acceptLanguage: string | undefined): Promise<{ newDevice: string; pinReset: string }> {
  const { account } = await signUpWithDevice(service, company);
  const phoneE164 = numberOf(account);
  const headers = { CompanyID: company.company_id, ...languageHeader(acceptLanguage) };
  const target = { dial_code: '+1', phone_number: String(account.registration.phone_number), user_type: 2, otp_type: 1 };
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  expect((await invoke(service.handlers.loginPhone, { path: '/l', headers, body: target })).status).toBe(200);
  const otp = codeIn(outbox(phoneE164).at(-1));
  let authorization = '';
  const newDevice = await toldWhile(phoneE164, async () => {
    const login = await invoke(service.handlers.verifyOtp, {
      path: '/v',
      headers,
      body: { ...target, otp, device_public_key: newDeviceKeyPair().publicKey },
    });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    authorization = `Token ${login.body.data.token.token}`;
  });
  const pinReset = await toldWhile(phoneE164, async () => {
    const reset = await invoke(service.handlers.resetPin, {
      path: '/wallet/v3/auth/reset_pin',
      headers: { ...headers, Authorization: authorization },
      body: { pin_type: 1, new_pin: '8052' },
    });
    expect(reset.body.data, JSON.stringify(reset.body)).toMatchObject({ pending: 1 });
  });
  return { newDevice, pinReset };
}

describe('the warnings of a held change and of a new device, in the company language', () => {
  let company: Company;

  beforeAll(async () => {
    company = await namedCompany();
    await command(updateCompany, [
      '--company',
      company.company_id,
      '--sms-template',
      'en=Your {brand} code is {code}.',
      '--sms-default-language',
      'en',
      '--warning-text',
      `login_pin:hi=${PIN_HINDI}`,
      '--warning-text',
      `login_pin:en=${PIN_ENGLISH}`,
      '--warning-text',
      `new_device:hi=${DEVICE_HINDI}`,
    ]);
  });

  it("tells a Hindi user of a held PIN reset and of the new device in Hindi: the request's Accept-Language", async () => {
    const told = await warningsOfPinReset(company, 'hi-IN,hi;q=0.9,en;q=0.8');
    expect(told.pinReset).toBe(filled(PIN_HINDI));
    expect(told.newDevice).toBe(filled(DEVICE_HINDI));
  });

  it("falls back to the company's default language, and to the built-in English where that has no text", async () => {
    const told = await warningsOfPinReset(company, 'fr-FR,fr;q=0.9');
    expect(told.pinReset).toBe(filled(PIN_ENGLISH));
    // new_device has a Hindi text only, and the default language (en) none: the built-in English.
    expect(told.newDevice).toBe(builtIn('new_device', company));
    expect((await warningsOfPinReset(company, undefined)).pinReset).toBe(filled(PIN_ENGLISH));
  });

  it('is the built-in English for a company with no warning text', async () => {
    const plain = await newCompany(service);
    const told = await warningsOfPinReset(plain, 'hi');
    expect(told.pinReset).toBe(builtIn('login_pin', plain));
    expect(told.newDevice).toBe(builtIn('new_device', plain));
  });

  it('uses the phone-change texts stored by an earlier release for a phone change that waits', async () => {
    const earlier = await namedCompany();
    // As --phone-change-text stored them before warning texts had kinds: sms_text.phone_change_texts.
    await storeCompany(service.app.table, earlier.company_id, { sms_text: { templates: {}, phone_change_texts: { hi: PHONE_HINDI } } });
    const { account } = await signUpWithDevice(service, earlier);
    const headers = { CompanyID: earlier.company_id, 'Accept-Language': 'hi' };
    const target = { dial_code: '+1', phone_number: String(account.registration.phone_number), user_type: 2, otp_type: 1 };
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    await invoke(service.handlers.loginPhone, { path: '/l', headers, body: target });
    const login = await invoke(service.handlers.verifyOtp, {
      path: '/v',
      headers,
      body: { ...target, otp: codeIn(outbox(numberOf(account)).at(-1)) },
    });
    const authorization = `Token ${login.body.data.token.token}`;
    const newNumber = randomPhoneNumber();
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    const proof = await provePhone(service, earlier, newNumber, { authorization });
    const warning = await toldWhile(numberOf(account), async () => {
      const answer = await invoke(service.handlers.userPhoneChange, {
        path: '/wallet/v3/user/phone/change',
        headers: { ...headers, Authorization: authorization },
        body: { dial_code: '+1', phone_number: newNumber, phone_verification_token: proof, login_pin: PINS.login_pin },
      });
      expect(answer.body.data, JSON.stringify(answer.body)).toMatchObject({ pending: 1 });
    });
    expect(warning).toBe(filled(PHONE_HINDI));

    // The command reads them as the phone warning's, sizes them, and keeps them where they are.
    const { last, stderr } = await command(updateCompany, ['--company', earlier.company_id, '--warning-text', `login_pin:hi=${PIN_HINDI}`]);
    expect(stderr).toMatch(/phone-change text hi: 2 SMS \(UCS-2/);
    expect(last.sms_text).toEqual({
      templates: {},
      phone_change_texts: { hi: PHONE_HINDI },
      warning_texts: { login_pin: { hi: PIN_HINDI } },
    });
  });
});

describe('npm run company:update --warning-text', () => {
  it('sets texts by kind and canonical language beside the templates, prints their sizes, and removes them with KIND:LANG=', async () => {
    const company = await namedCompany();
    const id = ['--company', company.company_id];
    const { last, stderr } = await command(updateCompany, [
      ...id,
      '--warning-text',
      `login_pin:HI=${PIN_HINDI}`,
      '--warning-text',
      `new_device:hi=${DEVICE_HINDI}`,
      '--warning-text',
      `phone:hi=${PHONE_HINDI}`,
      '--warning-text',
      'export:en=Someone asked for a copy of your {brand} data. Not you? Open the {brand} app.',
    ]);
    // The phone kind's stay where --phone-change-text keeps them.
    expect(last.sms_text).toEqual({
      templates: {},
      phone_change_texts: { hi: PHONE_HINDI },
      warning_texts: {
        login_pin: { hi: PIN_HINDI },
        new_device: { hi: DEVICE_HINDI },
        export: { en: 'Someone asked for a copy of your {brand} data. Not you? Open the {brand} app.' },
      },
    });
    expect(stderr).toMatch(/login_pin warning text hi: 2 SMS \(UCS-2, 100 units with the company name\)/);
    expect(stderr).toMatch(/new_device warning text hi: 2 SMS \(UCS-2/);
    expect(stderr).toMatch(/export warning text en: 1 SMS \(GSM-7, 79 units with the company name\)/);
    expect(stderr).toMatch(/phone-change text hi: 2 SMS \(UCS-2/);

    // --phone-change-text is the phone kind's: giving a language both ways is giving it twice.
    expect(await refused([...id, '--phone-change-text', `hi=${PHONE_HINDI}`, '--warning-text', `phone:hi=${PHONE_HINDI}`])).toMatch(
      /phone-change text hi: given twice/,
    );
    const { last: removed } = await command(updateCompany, [
      ...id,
      '--warning-text',
      'login_pin:hi=',
      '--warning-text',
      'new_device:hi=',
      '--phone-change-text',
      'hi=',
    ]);
    expect(removed.sms_text).toEqual({
      templates: {},
      warning_texts: { export: { en: 'Someone asked for a copy of your {brand} data. Not you? Open the {brand} app.' } },
    });
    await command(updateCompany, [...id, '--warning-text', 'export:en=']);
    expect(await getCompany(service.app.table, company.company_id)).not.toHaveProperty('sms_text');
  });

  it('refuses {code}, digits that read as a code, a text over 2 SMS, an unknown kind and a malformed option, and changes nothing', async () => {
    const company = await namedCompany();
    const id = ['--company', company.company_id];
    const problems = await refused([
      ...id,
      '--warning-text',
      'transaction_pin:en=Your {brand} code is {code}.',
      '--warning-text',
      'device_remove:fr=Code 482 913 pour {brand}.',
      '--warning-text',
      'sim_swap:en=Your {brand} SIM was swapped.',
      '--warning-text',
      'delete:de=   ',
    ]);
    expect(problems).toMatch(/^SMS text refused, nothing changed:/);
    expect(problems).toMatch(/transaction_pin warning text en: \{code\}: the warning carries no code/);
    expect(problems).toMatch(/device_remove warning text fr: "482 913": 4 or more digits in a run read as a code/);
    expect(problems).toMatch(/warning text "sim_swap:en": unknown warning "sim_swap" \(known: phone, login_pin, .*new_device\)/);
    expect(problems).toMatch(/delete warning text de: blank/);

    // 306 GSM-7 characters as written fit 2 SMS exactly; with "Chai Pay" (8) for {brand} (7) they need 3.
    expect(await refused([...id, '--warning-text', `profile:en={brand}${'a'.repeat(299)}`])).toMatch(
      /profile warning text en: the message would need 3 SMS \(307 GSM-7 characters, with the company name\); at most 2/,
    );
    expect(await refused([...id, '--warning-text', `new_device:hi=${'क'.repeat(135)}`])).toMatch(
      /new_device warning text hi: the message would need 3 SMS \(135 UCS-2 \(UTF-16\) units/,
    );
    expect(await refused([...id, '--warning-text', `login_pin:en_US=${PIN_ENGLISH}`])).toMatch(
      /login_pin warning text "en_US": not a BCP 47 language tag/,
    );
    for (const malformed of [`login_pin=${PIN_ENGLISH}`, `en=${PIN_ENGLISH}`, `:en=${PIN_ENGLISH}`, `login_pin:=${PIN_ENGLISH}`]) {
      expect(await refused([...id, '--warning-text', malformed])).toMatch(/--warning-text takes KIND:LANG=TEXT/);
    }
    expect(await getCompany(service.app.table, company.company_id)).not.toHaveProperty('sms_text');
  });

  it('refuses a rename that would put a stored warning over 2 SMS, and leaves the name', async () => {
    const company = await namedCompany();
    const id = ['--company', company.company_id];
    await command(updateCompany, [...id, '--warning-text', `new_device:en={brand} ${'a'.repeat(150)}`]);
    const problems = await refused([...id, '--name', 'N'.repeat(160)]);
    expect(problems).toMatch(/^company name refused, nothing changed:\nnew_device warning text en: the message would need 3 SMS/);
    expect((await getCompany(service.app.table, company.company_id))?.name).toBe(NAME);
  });
});
