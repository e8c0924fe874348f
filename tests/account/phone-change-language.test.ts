// The SIM-swap warning in the company's language (issue 30, API contract 3.11 and 7), against
// DynamoDB Local: an operator sets a warning text per language with company:update (no code, no
// digits that read as one, {brand} the company's name, sized as a code template with the name in);
// a phone change sends the old number the text of the caller's Accept-Language, else of the
// company's default language, else the built-in English.

import { beforeAll, describe, expect, it } from 'vitest';
import { phoneChangeNoticeText } from '../../lib/account/phone-change-notice.js';
import { type Company, updateCompanySettings } from '../../lib/companies/companies.js';
import { getCompany } from '../../lib/store/company-store.js';
import { main as createCompany } from '../../scripts/create-company.js';
import type { OperatorMain } from '../../scripts/operator-app.js';
import { main as updateCompany } from '../../scripts/update-company.js';
import { PINS, pinLogin, signUpWithDevice } from '../devices/device-helpers.js';
import {
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
const ENGLISH = 'Your {brand} wallet moved to a new phone number. Not you? Call {brand} support now.';
const HINDI = 'आपका {brand} खाता नए फ़ोन नंबर पर चला गया। आपने नहीं किया? तुरंत {brand} से संपर्क करें।';
const filled = (text: string, name = NAME) => text.replaceAll('{brand}', name);

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

/** A customer's phone change sent with this Accept-Language: the text the old number got last. */
async function warningAfterChange(company: Company, acceptLanguage: string | undefined): Promise<string> {
  // A session begun by PIN login on a bound device: the number moves at once, and the move's warning goes.
  const { account, device } = await signUpWithDevice(service, company);
  const oldNumber = String(account.registration.phone_number);
  const login = await pinLogin(service, company, device, PINS.login_pin);
  expect(login.status).toBe(200);
  const authorization = `Token ${login.body.data.token.token}`;
  const newNumber = randomPhoneNumber();
  const proof = await provePhone(service, company, newNumber, { authorization });
  const before = outboxMessages(service.app.config.sms.outboxFile, `+1${oldNumber}`).length;
  const answer = await invoke(service.handlers.userPhoneChange, {
    path: '/wallet/v3/user/phone/change',
    headers: {
      CompanyID: company.company_id,
      Authorization: authorization,
      ...(acceptLanguage ? { 'Accept-Language': acceptLanguage } : {}),
    },
    body: { dial_code: '+1', phone_number: newNumber, phone_verification_token: proof },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const told = outboxMessages(service.app.config.sms.outboxFile, `+1${oldNumber}`);
  expect(told).toHaveLength(before + 1);
  const warning = told.at(-1)!;
  expect(() => codeIn(warning)).toThrow('no code');
  return warning;
}

describe('the warning to the old number on a phone change, in the company language', () => {
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
      '--phone-change-text',
      `en=${ENGLISH}`,
      '--phone-change-text',
      `hi=${HINDI}`,
    ]);
  });

  it("is the text of the caller's Accept-Language, the company name filled in", async () => {
    expect(await warningAfterChange(company, 'hi-IN,hi;q=0.9,en;q=0.8')).toBe(filled(HINDI));
    // q-values decide, as for a code's text.
    expect(await warningAfterChange(company, 'hi;q=0.5,en')).toBe(filled(ENGLISH));
  });

  it("is the default language's text for a language the company has none in, or no header", async () => {
    expect(await warningAfterChange(company, 'fr-FR,fr;q=0.9')).toBe(filled(ENGLISH));
    expect(await warningAfterChange(company, undefined)).toBe(filled(ENGLISH));
  });

  it('is the built-in English for a company with no warning text, or none in the language and no default', async () => {
    const plain = await newCompany(service);
    expect(await warningAfterChange(plain, 'hi')).toBe(phoneChangeNoticeText(plain));
    // Warning texts but no default language: an unmatched caller gets the built-in text.
    const hindiOnly = await namedCompany();
    await command(updateCompany, ['--company', hindiOnly.company_id, '--phone-change-text', `hi=${HINDI}`]);
    expect(await warningAfterChange(hindiOnly, 'hi')).toBe(filled(HINDI));
    expect(await warningAfterChange(hindiOnly, 'fr')).toBe(phoneChangeNoticeText(hindiOnly));
  });
});

describe('npm run company:update --phone-change-text', () => {
  it('sets texts by canonical language tag beside the templates, prints their sizes, and removes them with LANG=', async () => {
    const company = await namedCompany();
    const id = ['--company', company.company_id];
    const { last, stderr } = await command(updateCompany, [
      ...id,
      '--phone-change-text',
      `HI=${HINDI}`,
      '--phone-change-text',
      `en=${ENGLISH}`,
    ]);
    expect(last.sms_text).toEqual({ templates: {}, phone_change_texts: { hi: HINDI, en: ENGLISH } });
    expect(stderr).toMatch(/phone-change text en: 1 SMS \(GSM-7, 85 units with the company name\)/);
    expect(stderr).toMatch(/phone-change text hi: 2 SMS \(UCS-2/);

    // A code template change keeps them, and a code template removed leaves them.
    const { last: withTemplate } = await command(updateCompany, [...id, '--sms-template', 'en=Your {brand} code is {code}.']);
    expect(withTemplate.sms_text).toEqual({
      templates: { en: 'Your {brand} code is {code}.' },
      phone_change_texts: { hi: HINDI, en: ENGLISH },
    });
    await command(updateCompany, [...id, '--sms-template', 'en=']);

    const { last: removed } = await command(updateCompany, [...id, '--phone-change-text', 'hi=']);
    expect(removed.sms_text).toEqual({ templates: {}, phone_change_texts: { en: ENGLISH } });
    await command(updateCompany, [...id, '--phone-change-text', 'en=']);
    expect(await getCompany(service.app.table, company.company_id)).not.toHaveProperty('sms_text');
  });

  it('refuses a text with {code}, with digits that read as a code, with another placeholder, or blank, and changes nothing', async () => {
    const company = await namedCompany();
    const id = ['--company', company.company_id];
    const problems = await refused([
      ...id,
      '--phone-change-text',
      'en=Your {brand} account moved; your code is {code}.',
      '--phone-change-text',
      'fr=Votre compte {brand} a changé de numéro. Code 482 913.',
      '--phone-change-text',
      'es=Su cuenta se movió en {minutes} minutos.',
      '--phone-change-text',
      'de=   ',
    ]);
    expect(problems).toMatch(/^SMS text refused, nothing changed:/);
    expect(problems).toMatch(/phone-change text en: \{code\}: the warning carries no code/);
    expect(problems).toMatch(/phone-change text fr: "482 913": 4 or more digits in a run read as a code/);
    expect(problems).toMatch(/phone-change text es: unknown placeholder \{minutes\}/);
    expect(problems).toMatch(/phone-change text de: blank/);
    expect(await refused([...id, '--phone-change-text', 'en=Call 1234 now'])).toMatch(/"1234": 4 or more digits/);
    // Up to three digits tell no code: "24/7" and "3 days" pass.
    await command(updateCompany, [...id, '--phone-change-text', 'en=Your {brand} account moved. Help 24/7 for 3 days.']);
    await command(updateCompany, [...id, '--phone-change-text', 'en=']);
    expect(await getCompany(service.app.table, company.company_id)).not.toHaveProperty('sms_text');
  });

  it('refuses a language that is not a BCP 47 tag, a language given twice, and LANG without =', async () => {
    const company = await namedCompany();
    const id = ['--company', company.company_id];
    expect(await refused([...id, '--phone-change-text', `en_US=${ENGLISH}`])).toMatch(
      /phone-change text "en_US": not a BCP 47 language tag/,
    );
    expect(await refused([...id, '--phone-change-text', `en=${ENGLISH}`, '--phone-change-text', `EN=${ENGLISH}`])).toMatch(
      /phone-change text en: given twice/,
    );
    expect(await refused([...id, '--phone-change-text', ENGLISH])).toMatch(/--phone-change-text takes LANG=TEXT/);
    expect(await getCompany(service.app.table, company.company_id)).not.toHaveProperty('sms_text');
  });

  it('refuses a text over 2 SMS counted with the company name filled in, as a code template is', async () => {
    const company = await namedCompany();
    const id = ['--company', company.company_id];
    // 306 GSM-7 characters as written fit 2 SMS exactly; with "Chai Pay" (8) for {brand} (7) they need 3.
    const gsm = `{brand}${'a'.repeat(299)}`;
    expect(await refused([...id, '--phone-change-text', `en=${gsm}`])).toMatch(
      /phone-change text en: the message would need 3 SMS \(307 GSM-7 characters, with the company name\); at most 2/,
    );
    // UCS-2: 134 units is 2 SMS; 135 are 3.
    expect(await refused([...id, '--phone-change-text', `hi=${'क'.repeat(135)}`])).toMatch(
      /phone-change text hi: the message would need 3 SMS \(135 UCS-2 \(UTF-16\) units/,
    );
    const { last } = await command(updateCompany, [...id, '--phone-change-text', `hi=${'क'.repeat(134)}`]);
    expect(last.sms_text.phone_change_texts.hi).toHaveLength(134);
  });

  it('refuses a rename that would put a stored text over 2 SMS, and leaves the name', async () => {
    const company = await namedCompany();
    const id = ['--company', company.company_id];
    // 150 + "Chai Pay" fits 2 SMS; 150 + a name of 160 does not.
    await command(updateCompany, [...id, '--phone-change-text', `en={brand} ${'a'.repeat(150)}`]);
    const problems = await refused([...id, '--name', 'N'.repeat(160)]);
    expect(problems).toMatch(/^company name refused, nothing changed:\nphone-change text en: the message would need 3 SMS/);
    expect((await getCompany(service.app.table, company.company_id))?.name).toBe(NAME);
    const renamed = await updateCompanySettings(
      service.app.table,
      service.clock,
      company.company_id,
      { name: 'N'.repeat(100) },
      service.app.config.otp.ttlSeconds,
    );
    expect(renamed.phoneChangeSizes).toMatchObject({ en: { segments: 2 } });
  });
});
