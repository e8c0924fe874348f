import fc from 'fast-check';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Company, updateCompanySettings } from '../../lib/companies/companies.js';
import { type OtpSms, otpSmsText as sentText, templateLanguage } from '../../lib/sms/otp-sms-text.js';
import { smsSize } from '../../lib/sms/sms-segments.js';
import { BUILT_IN_TEMPLATE, changedSmsText, type SmsTextChanges, SmsTextRefused, smsMessage } from '../../lib/sms/sms-text.js';
import { getCompany, type SmsTextSettings } from '../../lib/store/company-store.js';
import { invoke, newCompany, outboxMessages, randomPhoneNumber, testService } from '../helpers.js';

const HINDI = '{code} आपका {brand} सत्यापन कोड है। यह {minutes} मिनट में समाप्त होगा।';
const SPANISH = '{code} es tu código de {brand}. Vence en {minutes} minutos.';
const MEXICAN = '{code} es tu código de {brand}. Caduca en {minutes} minutos.';
const ENGLISH = 'Your {brand} code is {code}. It expires in {minutes} minutes.';

const settings: SmsTextSettings = { templates: { hi: HINDI, es: SPANISH, 'es-MX': MEXICAN, en: ENGLISH } };

describe('the language of a message', () => {
  it.each([
    ['an exact tag', 'hi', 'hi'],
    ['a region of a template language (hi-IN takes hi)', 'hi-IN', 'hi'],
    ['the exact tag before its primary language (es-MX before es)', 'es-MX', 'es-MX'],
    ['the primary language where the region has none (es-AR takes es)', 'es-AR', 'es'],
    ['the q-values first', 'en;q=0.5,hi;q=0.9', 'hi'],
    ['the browser header of the walk-through', 'hi-IN,hi;q=0.9,en;q=0.8', 'hi'],
    ['nothing for a language refused with q=0', 'hi;q=0,fr', undefined],
    ['any case', 'HI-in', 'hi'],
  ])('takes %s', (_, header, language) => {
    expect(templateLanguage(settings, header)).toBe(language);
  });

  it("falls back to the company's default language: no header, no match, *, or a header that is no list", () => {
    const withDefault = { ...settings, default_language: 'en' };
    for (const header of [undefined, '', 'fr-FR,de;q=0.9', '*', ';;;,,=']) expect(templateLanguage(withDefault, header)).toBe('en');
    expect(templateLanguage(withDefault, 'fr, *;q=0.1')).toBe('en');
  });

  it('takes a regional template for its primary language where the company has no other (es takes es-MX)', () => {
    expect(templateLanguage({ templates: { 'es-MX': MEXICAN, en: ENGLISH } }, 'es')).toBe('es-MX');
  });

  it('falls back to the built-in English text with no default language, or with no template', () => {
    expect(templateLanguage(settings, 'fr')).toBeUndefined();
    expect(templateLanguage(undefined, 'hi')).toBeUndefined();
    expect(templateLanguage({ templates: {}, app_hash: 'FA+9qCX9VSu' }, 'hi')).toBeUndefined();
  });
});

/** What a send reports of a text it had to shorten: its warnings and its metrics. */
function sendReports() {
  const warnings: { message: unknown; fields: any }[] = [];
  const counted: string[] = [];
  return {
    logger: { warn: (message: unknown, ...fields: unknown[]) => void warnings.push({ message, fields: fields[0] }) },
    metrics: { count: (name: string) => void counted.push(name) },
    warnings,
    counted,
  };
}

describe('the text of a message', () => {
  const company = (sms_text?: SmsTextSettings) => ({ company_id: 'c0ffee', name: 'Chai Pay', sms_text });
  const sms = (acceptLanguage?: string) => ({ code: '123456', ttlSeconds: 300, acceptLanguage });
  const reports = sendReports();
  const otpSmsText = (target: Parameters<typeof sentText>[0], message: OtpSms) => sentText(target, message, reports);
  afterEach(() => {
    // A text that fits is sent as it is, with nothing to report.
    expect(reports.warnings).toEqual([]);
    expect(reports.counted).toEqual([]);
  });

  it('is the built-in English text for a company with none, as it always was', () => {
    expect(otpSmsText(company(), sms('hi'))).toBe('123456 is your Chai Pay verification code. It expires in 5 minutes. Never share it.');
  });

  it('fills {code}, {brand} and {minutes} in the chosen template, each wherever and however often it appears', () => {
    expect(otpSmsText(company(settings), sms('hi-IN'))).toBe('123456 आपका Chai Pay सत्यापन कोड है। यह 5 मिनट में समाप्त होगा।');
    expect(otpSmsText(company({ templates: { en: '{code}/{code} {brand}' } }), sms('en'))).toBe('123456/123456 Chai Pay');
    // A company name is never read as a template, nor "$&" as a replacement pattern.
    expect(otpSmsText({ company_id: 'c0ffee', name: '{code} $&', sms_text: { templates: { en: '{brand}: {code}' } } }, sms('en'))).toBe(
      '{code} $&: 123456',
    );
  });

  it('appends the SMS Retriever app hash as the last line', () => {
    expect(otpSmsText(company({ ...settings, app_hash: 'FA+9qCX9VSu' }), sms('hi')).split('\n')).toEqual([
      '123456 आपका Chai Pay सत्यापन कोड है। यह 5 मिनट में समाप्त होगा।',
      'FA+9qCX9VSu',
    ]);
  });

  it('makes the last line "@<domain> #<code>" for WebOTP, after the app hash when both are set', () => {
    expect(otpSmsText(company({ templates: {}, webotp_domain: 'wallet.example.com' }), sms()).split('\n')).toEqual([
      '123456 is your Chai Pay verification code. It expires in 5 minutes. Never share it.',
      '@wallet.example.com #123456',
    ]);
    expect(
      otpSmsText(company({ ...settings, app_hash: 'FA+9qCX9VSu', webotp_domain: 'wallet.example.com' }), sms('en')).split('\n'),
    ).toEqual(['Your Chai Pay code is 123456. It expires in 5 minutes.', 'FA+9qCX9VSu', '@wallet.example.com #123456']);
  });
});

/** A name of 200 characters in Devanagari: with the built-in text, 275 UCS-2 units, 5 SMS as it stands. */
const DEVANAGARI_NAME = 'भारत डिजिटल भुगतान वॉलेट सेवा '.repeat(7).slice(0, 200);
const BUILT_IN_END = ' verification code. It expires in 5 minutes. Never share it.';

describe('a code text never needs more than 2 SMS when it is sent (settings stored before the checks, or a longer code lifetime)', () => {
  const sms = (acceptLanguage?: string, ttlSeconds = 300) => ({ code: '123456', ttlSeconds, acceptLanguage });
  const company = (name: string, sms_text?: SmsTextSettings) => ({ company_id: 'c0ffee', name, sms_text });

  it("shortens the company's name to its longest start of whole words that fits, and reports it", () => {
    const reports = sendReports();
    expect(smsSize(`123456 is your ${DEVANAGARI_NAME}${BUILT_IN_END}`).segments).toBe(5);
    const text = sentText(company(DEVANAGARI_NAME), sms(), reports);
    expect(smsSize(text)).toEqual({ encoding: 'UCS-2', units: expect.any(Number), segments: 2 });
    expect(text.startsWith('123456 is your ') && text.endsWith(BUILT_IN_END)).toBe(true);
    const brand = text.slice('123456 is your '.length, -BUILT_IN_END.length);
    // Whole words: the name goes on with a space; one more word would not fit.
    expect(DEVANAGARI_NAME.startsWith(`${brand} `)).toBe(true);
    const oneMoreWord = DEVANAGARI_NAME.slice(0, DEVANAGARI_NAME.indexOf(' ', brand.length + 1));
    expect(smsSize(`123456 is your ${oneMoreWord}${BUILT_IN_END}`).segments).toBe(3);
    expect(reports.counted).toEqual(['sms_text_shortened']);
    expect(reports.warnings).toEqual([
      {
        message: expect.stringMatching(/more than 2 SMS/),
        fields: {
          company_id: 'c0ffee',
          language: 'built-in',
          segments: 5,
          sent_template: 'built-in',
          brand: 'shortened',
          autofill_lines: true,
        },
      },
    ]);
    // Never the code itself in what is reported.
    expect(JSON.stringify(reports.warnings)).not.toContain('123456');
    // Ł makes it UCS-2: 59 units of name fit, "...India Private Lim"; the cut goes back to a word's end.
    const polish = 'Łódź Digital Payments Wallet Services of India Private Limited';
    expect(sentText(company(polish), sms(), reports)).toBe(
      `123456 is your Łódź Digital Payments Wallet Services of India Private${BUILT_IN_END}`,
    );
  });

  it('cuts a name of one long word between characters, never inside one (a grapheme: letter and its marks)', () => {
    // कि is a consonant and its vowel sign: 2 units, 1 character. 59 units of name fit; 29 characters.
    const text = sentText(company('कि'.repeat(100)), sms(), sendReports());
    expect(smsSize(text)).toEqual({ encoding: 'UCS-2', units: 133, segments: 2 });
    expect(text).toBe(`123456 is your ${'कि'.repeat(29)}${BUILT_IN_END}`);
  });

  it("keeps the caller's language with a shortened name before it falls back to the built-in English", () => {
    const hindi = `{code} आपका {brand} सत्यापन कोड है। ${'क'.repeat(60)}`;
    const reports = sendReports();
    const text = sentText(company(DEVANAGARI_NAME, { templates: { hi: hindi } }), sms('hi'), reports);
    expect(text).toMatch(/^123456 आपका भारत .* सत्यापन कोड है। क+$/);
    expect(smsSize(text).segments).toBe(2);
    expect(reports.warnings[0]?.fields).toMatchObject({ language: 'hi', sent_template: 'hi', brand: 'shortened' });
  });

  it('falls back to the built-in English text when the template is too long without any name', () => {
    const reports = sendReports();
    const text = sentText(company('Chai Pay', { templates: { hi: `{code} ${'क'.repeat(140)}` } }), sms('hi'), reports);
    expect(text).toBe(`123456 is your Chai Pay${BUILT_IN_END}`);
    expect(reports.warnings[0]?.fields).toMatchObject({ language: 'hi', segments: 3, sent_template: 'built-in', brand: 'whole' });
  });

  it('sends the code without the name, then without the autofill lines, when nothing else fits (a long WebOTP domain)', () => {
    // The text without a name (74) and the WebOTP line (1 + 231) fill 2 SMS (306) to the last character:
    // a name of one letter (and its space) is 2 too many.
    const domain = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(30)}`;
    const reports = sendReports();
    const noName = sentText(company('N'.repeat(200), { templates: {}, webotp_domain: domain }), sms(), reports);
    expect(noName).toBe(`123456 is your verification code. It expires in 5 minutes. Never share it.\n@${domain} #123456`);
    expect(smsSize(noName).segments).toBe(2);
    expect(reports.warnings[0]?.fields).toMatchObject({ brand: 'left_out', autofill_lines: true });
    const withHash = sentText(company('N'.repeat(200), { templates: {}, webotp_domain: domain, app_hash: 'FA+9qCX9VSu' }), sms(), reports);
    expect(withHash).toBe('123456 is your verification code. It expires in 5 minutes. Never share it.');
    expect(reports.warnings[1]?.fields).toMatchObject({ brand: 'left_out', autofill_lines: false });
    expect(reports.counted).toEqual(['sms_text_shortened', 'sms_text_shortened']);
  });

  it('fits any name with any template, autofill lines and code lifetime, and leaves a text that fits as it is', () => {
    const character = fc.constantFrom('a', 'N', ' ', 'é', '€', '{', 'क', 'ि', '्', '😀', 'ж', '中', '.');
    const text = (length: number) => fc.array(character, { maxLength: length, size: 'max' }).map((characters) => characters.join(''));
    fc.assert(
      fc.property(
        text(200).filter((name) => name.trim() !== ''),
        fc.tuple(text(160), text(160)).map(([before, after]) => `${before}{brand} {code}${after}`),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 60, max: 6000 }),
        (name, template, hash, webotp, ttlSeconds) => {
          const settings: SmsTextSettings = {
            templates: { hi: template },
            ...(hash ? { app_hash: 'FA+9qCX9VSu' } : {}),
            ...(webotp ? { webotp_domain: 'wallet.example.com' } : {}),
          };
          for (const language of ['hi', 'fr']) {
            const reports = sendReports();
            const sent = sentText(company(name, settings), sms(language, ttlSeconds), reports);
            expect(smsSize(sent).segments).toBeLessThanOrEqual(2);
            expect(sent).toContain('123456');
            const chosen = language === 'hi' ? template : BUILT_IN_TEMPLATE;
            const whole = smsMessage(chosen, { code: '123456', brand: name, ttlSeconds }, settings);
            if (smsSize(whole).segments <= 2) {
              expect(sent).toBe(whole);
              expect(reports.counted).toEqual([]);
            } else expect(reports.counted).toEqual(['sms_text_shortened']);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('the rules a company SMS text must pass', () => {
  const change = (changes: SmsTextChanges, current?: SmsTextSettings, brand = 'Chai Pay') => changedSmsText(current, changes, brand, 300);
  const refusal = (changes: SmsTextChanges, current?: SmsTextSettings, brand?: string) => {
    try {
      change(changes, current, brand);
    } catch (error) {
      expect(error).toBeInstanceOf(SmsTextRefused);
      return (error as Error).message;
    }
    throw new Error('not refused');
  };

  it('stores tags in canonical case, adds and removes templates, and drops settings left empty', () => {
    const added = change({ templates: [{ language: 'HI-in', text: HINDI }], default_language: 'hi-in', app_hash: 'FA+9qCX9VSu' });
    expect(added.settings).toEqual({ templates: { 'hi-IN': HINDI }, default_language: 'hi-IN', app_hash: 'FA+9qCX9VSu' });
    const more = change({ templates: [{ language: 'en', text: ENGLISH }], webotp_domain: 'Wallet.Example.COM' }, added.settings);
    expect(more.settings).toMatchObject({ templates: { 'hi-IN': HINDI, en: ENGLISH }, webotp_domain: 'wallet.example.com' });
    const fewer = change({ templates: [{ language: 'en', text: null }], app_hash: null, webotp_domain: null }, more.settings);
    expect(fewer.settings).toEqual({ templates: { 'hi-IN': HINDI }, default_language: 'hi-IN' });
    expect(change({ templates: [{ language: 'hi-IN', text: null }], default_language: null }, fewer.settings).settings).toBeUndefined();
  });

  it('refuses a template without {code}, with an unknown placeholder, or with a stray brace', () => {
    expect(refusal({ templates: [{ language: 'en', text: 'Your {brand} code' }] })).toMatch(/template en: no \{code\}/);
    expect(refusal({ templates: [{ language: 'en', text: '{code} for {user}' }] })).toMatch(/template en: unknown placeholder \{user\}/);
    expect(refusal({ templates: [{ language: 'en', text: '{code} {Code}' }] })).toMatch(/unknown placeholder \{Code\}/);
    expect(refusal({ templates: [{ language: 'en', text: '{code} {brand' }] })).toMatch(/a \{ or \} outside a placeholder/);
  });

  it('refuses a language that is no BCP 47 tag, for a template or as the default, and one given twice', () => {
    for (const tag of ['en_US', 'en-', '123', '*', 'e', 'hi,en']) {
      expect(refusal({ templates: [{ language: tag, text: '{code}' }] })).toMatch(/not a BCP 47 language tag/);
    }
    expect(refusal({ default_language: 'hi_IN' })).toMatch(/default language "hi_IN": not a BCP 47 language tag/);
    expect(
      refusal({
        templates: [
          { language: 'hi', text: '{code}' },
          { language: 'HI', text: '{code}!' },
        ],
      }),
    ).toMatch(/template hi: given twice/);
  });

  it('refuses a default language without a template in it, also when its template is removed', () => {
    expect(refusal({ default_language: 'hi' })).toMatch(/default language hi: the company has no template in it/);
    const current = { templates: { hi: HINDI }, default_language: 'hi' };
    expect(refusal({ templates: [{ language: 'hi', text: null }] }, current)).toMatch(/default language hi: the company has no template/);
  });

  it('refuses an app hash that is not 11 characters of the base64 alphabet', () => {
    for (const hash of ['FA+9qCX9VS', 'FA+9qCX9VSuX', 'FA+9qCX9VS-', 'FA+9qCX9VS=']) {
      expect(refusal({ app_hash: hash })).toMatch(/an SMS Retriever app hash is 11 characters/);
    }
  });

  it('refuses a WebOTP domain that is not a domain name', () => {
    for (const domain of [
      'localhost',
      'https://wallet.example.com',
      'wallet.example.com:443',
      '1.2.3.4',
      '-a.example.com',
      'a..b',
      '*.example.com',
    ]) {
      expect(refusal({ webotp_domain: domain }), domain).toMatch(/WebOTP domain .*: not a domain name/);
    }
    expect(change({ webotp_domain: 'bücher.example' }).settings?.webotp_domain).toBe('xn--bcher-kva.example');
  });

  it('counts the message as sent: a 6-digit code, the company name, the minutes, and the autofill lines', () => {
    // {code} is 6 characters once filled: 154 + 6 = 160 fits one SMS, 155 + 6 does not.
    expect(change({ templates: [{ language: 'en', text: `{code}${'a'.repeat(154)}` }] }).sizes.en).toEqual({
      encoding: 'GSM-7',
      units: 160,
      segments: 1,
    });
    expect(change({ templates: [{ language: 'en', text: `{code}${'a'.repeat(155)}` }] }).sizes.en?.segments).toBe(2);
    // Two SMS of GSM-7 hold 306: 300 + 6 fits, 301 + 6 is refused with its count.
    expect(change({ templates: [{ language: 'en', text: `{code}${'a'.repeat(300)}` }] }).sizes.en?.segments).toBe(2);
    expect(refusal({ templates: [{ language: 'en', text: `{code}${'a'.repeat(301)}` }] })).toMatch(
      /template en: the message would need 3 SMS \(307 GSM-7 characters.*at most 2/,
    );
    // One emoji makes it UCS-2: 2 SMS hold 134 units.
    expect(refusal({ templates: [{ language: 'en', text: `{code}😀${'a'.repeat(127)}` }] })).toMatch(/3 SMS \(135 UCS-2/);
    // The company name counts as it is.
    const brandText = { templates: [{ language: 'en', text: `{brand} {code}${'a'.repeat(290)}` }] };
    expect(change(brandText, undefined, 'Pay').sizes.en?.segments).toBe(2);
    expect(refusal(brandText, undefined, 'Chai Pay Wallet')).toMatch(/3 SMS/);
  });

  it('refuses an app hash or WebOTP domain that would push a stored template over 2 SMS', () => {
    const current = { templates: { en: `{code}${'a'.repeat(285)}` } };
    // 291, + "\n" and the hash: 303 of 306; + "\n@wallet.example.com #000000" as well: 331.
    const hashed = change({ app_hash: 'FA+9qCX9VSu' }, current);
    expect(hashed.sizes.en).toEqual({ encoding: 'GSM-7', units: 303, segments: 2 });
    expect(hashed.warnings).toEqual([expect.stringMatching(/en: 2 SMS .*SMS Retriever reads only single-SMS messages/)]);
    expect(refusal({ webotp_domain: 'wallet.example.com' }, hashed.settings)).toMatch(
      /template en: the message would need 3 SMS \(331 GSM-7/,
    );
  });

  it('counts the built-in English text too while there is no default language (a request may match no template)', () => {
    const longName = 'N'.repeat(200);
    const autofill = { app_hash: 'FA+9qCX9VSu', webotp_domain: 'wallet.example.com' };
    // 275 characters with a name of 200, + 12 and + 28 for the two lines.
    expect(change({ app_hash: 'FA+9qCX9VSu' }, undefined, longName).sizes['built-in']).toMatchObject({ units: 287, segments: 2 });
    expect(refusal(autofill, undefined, longName)).toMatch(/the built-in English text: the message would need 3 SMS \(315 GSM-7/);
    const current = { templates: { en: ENGLISH } };
    expect(refusal(autofill, current, longName)).toMatch(/built-in English text/);
    // With a default language, the built-in text is never sent.
    expect(change({ default_language: 'en', ...autofill }, current, longName).sizes).not.toHaveProperty('built-in');
  });

  it('reports every problem at once', () => {
    const message = refusal({ templates: [{ language: 'en_US', text: '{x}' }], app_hash: 'short', webotp_domain: 'localhost' });
    expect(message.split('\n')).toHaveLength(3);
  });
});

describe("sends in the caller's language (in process, DynamoDB Local)", () => {
  const service = testService();
  let company: Company;

  beforeAll(async () => {
    company = await newCompany(service);
    await updateCompanySettings(
      service.app.table,
      service.clock,
      company.company_id,
      {
        sms_text: {
          templates: [
            { language: 'hi', text: HINDI },
            { language: 'en', text: ENGLISH },
          ],
          app_hash: 'FA+9qCX9VSu',
        },
      },
      service.app.config.otp.ttlSeconds,
    );
  });

  async function sendTo(headers: Record<string, string>, companyId = company.company_id): Promise<string> {
    const phone = randomPhoneNumber();
    const answer = await invoke(service.handlers.loginPhone, {
      path: '/wallet/v3/auth/login_phone',
      headers: { CompanyID: companyId, ...headers },
      body: { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const [message] = outboxMessages(service.app.config.sms.outboxFile, `+1${phone}`);
    return message!;
  }

  it('reads Accept-Language whatever the case of its name, and appends the app hash', async () => {
    for (const name of ['Accept-Language', 'accept-language', 'ACCEPT-LANGUAGE']) {
      const message = await sendTo({ [name]: 'hi-IN,hi;q=0.9,en;q=0.8' });
      expect(message).toMatch(new RegExp(`^\\d{6} आपका ${company.name} सत्यापन कोड है। यह 5 मिनट में समाप्त होगा।\nFA\\+9qCX9VSu$`));
    }
    expect(await sendTo({ 'Accept-Language': 'en-GB' })).toMatch(new RegExp(`^Your ${company.name} code is \\d{6}\\.`));
  });

  it('sends the built-in English text, with the app hash, when nothing matches and there is no default', async () => {
    expect(await sendTo({ 'Accept-Language': 'fr' })).toMatch(
      /^\d{6} is your .* verification code\. It expires in 5 minutes\. Never share it\.\nFA\+9qCX9VSu$/,
    );
    expect(await sendTo({})).toMatch(/ is your .* verification code/);
  });
});

describe('SMS text settings travel with the cached company record', () => {
  // As deployed: a warm function keeps a company for 30 s.
  const service = testService({ COMPANY_CACHE_SECONDS: '30' });
  // Each DynamoDB request: its operation, and "company" when it names a company record.
  const requests: string[] = [];
  service.app.table.client.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { headers: Record<string, string>; body: string };
      const operation = request.headers['x-amz-target']?.split('.')[1];
      requests.push(`${operation}${String(request.body).includes('"COMPANY"') ? ' company' : ''}`);
      return next(args);
    },
    { step: 'finalizeRequest', name: 'recordTableRequests' },
  );

  afterEach(() => service.clock.reset());

  async function send(companyId: string, acceptLanguage: string) {
    const phone = randomPhoneNumber();
    const before = requests.length;
    const answer = await invoke(service.handlers.loginPhone, {
      path: '/wallet/v3/auth/login_phone',
      headers: { CompanyID: companyId, 'Accept-Language': acceptLanguage },
      body: { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 },
    });
    expect(answer.status).toBe(200);
    return { requests: requests.slice(before).sort(), message: outboxMessages(service.app.config.sms.outboxFile, `+1${phone}`)[0]! };
  }

  const update = (companyId: string, sms_text: SmsTextChanges) =>
    updateCompanySettings(service.app.table, service.clock, companyId, { sms_text }, service.app.config.otp.ttlSeconds);

  it('does not add a DynamoDB request to a send, whatever the number of templates', async () => {
    const [plain, many] = [await newCompany(service), await newCompany(service)];
    const tags = [
      'hi',
      'en',
      'es',
      'es-MX',
      'fr',
      'de',
      'pt-BR',
      'sw',
      'ta',
      'bn',
      'mr',
      'te',
      'gu',
      'kn',
      'ml',
      'pa',
      'ur',
      'ar',
      'id',
      'vi',
    ];
    await update(many.company_id, {
      templates: tags.map((language) => ({ language, text: `${language}: {code}` })),
      app_hash: 'FA+9qCX9VSu',
    });
    // The first send of each reads its company; the next ones take it from the cache.
    const first = [await send(plain.company_id, 'sw'), await send(many.company_id, 'sw')];
    expect(first[1]!.requests).toEqual(first[0]!.requests);
    expect(first[0]!.requests).toContain('GetItem company');
    const warm = [await send(plain.company_id, 'sw'), await send(many.company_id, 'sw')];
    expect(warm[1]!.message).toMatch(/^sw: \d{6}\nFA\+9qCX9VSu$/);
    expect(warm[1]!.requests).toEqual(warm[0]!.requests);
    expect(warm[1]!.requests).not.toContain('GetItem company');
    expect(warm[1]!.requests).toHaveLength(first[1]!.requests.length - 1);
  });

  it('puts a change in force once the cache time (30 s) has passed', async () => {
    const target = await newCompany(service);
    expect((await send(target.company_id, 'hi')).message).toMatch(/ is your .* verification code/);
    await update(target.company_id, { templates: [{ language: 'hi', text: HINDI }] });
    expect((await send(target.company_id, 'hi')).message).toMatch(/ is your .* verification code/);
    service.clock.advance(31);
    expect((await send(target.company_id, 'hi')).message).toMatch(/आपका/);
  });

  it("keeps each of three concurrent changes to one company's templates", async () => {
    const target = await newCompany(service);
    await Promise.all([
      update(target.company_id, { templates: [{ language: 'hi', text: HINDI }] }),
      update(target.company_id, { templates: [{ language: 'en', text: ENGLISH }] }),
      update(target.company_id, { templates: [{ language: 'es', text: SPANISH }] }),
    ]);
    expect((await getCompany(service.app.table, target.company_id))?.sms_text?.templates).toEqual({ hi: HINDI, en: ENGLISH, es: SPANISH });
  });
});
