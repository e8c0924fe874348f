// A company's name is part of every code text ({brand}, and the built-in text carries it): a
// name is sized with every message when a company is created or renamed, and a send shortens
// what it must so that no code text needs more than 2 SMS (contract 7).
import { randomBytes, randomInt } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany, updateCompanySettings } from '../../lib/companies/companies.js';
import { smsSize } from '../../lib/sms/sms-segments.js';
import { SmsTextRefused } from '../../lib/sms/sms-text.js';
import { getCompany, putNewCompany } from '../../lib/store/company-store.js';
import { main as createCompanyCommand } from '../../scripts/create-company.js';
import type { OperatorMain } from '../../scripts/operator-app.js';
import { main as updateCompanyCommand } from '../../scripts/update-company.js';
import { captureLogs, type LogCapture } from '../hardening/log-capture.js';
import { invoke, newCompany, outboxMessages, randomPhoneNumber, runOperator, testEnvironment, testService } from '../helpers.js';

const env = { ...process.env, ...testEnvironment() };
const service = testService();
const ttlSeconds = service.app.config.otp.ttlSeconds;

/** 200 characters of Devanagari: with the built-in text, 275 UCS-2 units, 5 SMS. */
const DEVANAGARI_NAME = 'भारत डिजिटल भुगतान वॉलेट सेवा '.repeat(7).slice(0, 200);
/** The built-in text holds 75 units beside the name: 59 more fill 2 UCS-2 SMS (134). */
const LONGEST_DEVANAGARI = 'क'.repeat(59);

/** Runs an operator command's main in this process, as npm would run it with this environment. */
const command = (main: OperatorMain, args: string[]) => runOperator(main, args, env);

/** The companies of this name in the table (a refused one must have left none). */
async function companiesNamed(name: string): Promise<unknown[]> {
  const items: unknown[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await service.app.table.client.send(
      new ScanCommand({
        TableName: service.app.table.name,
        FilterExpression: '#name = :name',
        ExpressionAttributeNames: { '#name': 'name' },
        ExpressionAttributeValues: { ':name': name },
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

function refusal(error: unknown): string {
  expect(error).toBeInstanceOf(SmsTextRefused);
  return (error as Error).message;
}

describe('a company is created only with a name every code text fits in 2 SMS', () => {
  it('refuses the name of 200 Devanagari characters (the built-in text: 5 SMS), and stores nothing', async () => {
    const name = `${DEVANAGARI_NAME.slice(0, 191)} ${randomInt(1e7, 1e8)}`;
    const error = await createCompany(service.app.table, service.clock, name, {}, ttlSeconds).catch((caught: unknown) => caught);
    expect(refusal(error)).toMatch(/^the built-in English text: the message would need 5 SMS \(275 UCS-2 \(UTF-16\) units.*at most 2/);
    // It says how much of the name would fit.
    expect(refusal(error)).toContain(`the name fits up to "${DEVANAGARI_NAME.slice(0, 59)}"`);
    expect(await companiesNamed(name)).toEqual([]);
  });

  it('takes the longest name that fits, any GSM-7 name of 200 characters, and refuses one character more', async () => {
    const fits = await createCompany(service.app.table, service.clock, LONGEST_DEVANAGARI, {}, ttlSeconds);
    expect(await getCompany(service.app.table, fits.company_id)).toMatchObject({ name: LONGEST_DEVANAGARI });
    await expect(createCompany(service.app.table, service.clock, `${LONGEST_DEVANAGARI}क`, {}, ttlSeconds)).rejects.toThrow(
      /3 SMS \(135 UCS-2/,
    );
    await expect(createCompany(service.app.table, service.clock, 'N'.repeat(200), {}, ttlSeconds)).resolves.toMatchObject({
      status: 'active',
    });
  });

  it('npm run company:create refuses it with the count on stderr and exit 2', async () => {
    const name = `${DEVANAGARI_NAME.slice(0, 191)} ${randomInt(1e7, 1e8)}`;
    const refused = await command(createCompanyCommand, ['--name', name]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^company name refused, nothing created:\nthe built-in English text: the message would need 5 SMS/);
    expect(await companiesNamed(name)).toEqual([]);
    const created = await command(createCompanyCommand, ['--name', LONGEST_DEVANAGARI]);
    expect(created.code).toBe(0);
    expect(created.stderr).toMatch(/sms text built-in: 2 SMS \(UCS-2, 134 units with a 6-digit code\)/);
  });
});

describe('a company is renamed only to a name every code text fits in 2 SMS', () => {
  const HINDI = '{code} आपका {brand} सत्यापन कोड है। {minutes} मिनट तक मान्य।';

  it('sizes the new name with each template and the built-in text; a refused rename changes nothing', async () => {
    const company = await newCompany(service);
    await updateCompanySettings(
      service.app.table,
      service.clock,
      company.company_id,
      { sms_text: { templates: [{ language: 'hi', text: HINDI }] } },
      ttlSeconds,
    );
    const error = await updateCompanySettings(
      service.app.table,
      service.clock,
      company.company_id,
      { name: DEVANAGARI_NAME },
      ttlSeconds,
    ).catch((caught: unknown) => caught);
    expect(refusal(error).split('\n')).toEqual([
      expect.stringMatching(/^template hi: the message would need 4 SMS/),
      expect.stringMatching(/^the built-in English text: the message would need 5 SMS/),
    ]);
    expect(await getCompany(service.app.table, company.company_id)).toMatchObject({ name: company.name });

    const renamed = await updateCompanySettings(service.app.table, service.clock, company.company_id, { name: 'चाय पे' }, ttlSeconds);
    expect(renamed.company.name).toBe('चाय पे');
    expect(renamed.smsText?.sizes).toMatchObject({ hi: { segments: 1 }, 'built-in': { segments: 2 } });
    expect(renamed.company.sms_text?.templates).toEqual({ hi: HINDI });
  });

  it('a rename and a template change side by side cannot together make a text of 3 SMS', async () => {
    // Each fits with the other as it was; together, "N" * 150 and a template of 150 more need 3 SMS.
    const long = { templates: [{ language: 'en', text: `{brand} {code} ${'a'.repeat(150)}` }] };
    for (let round = 0; round < 5; round++) {
      const company = await newCompany(service);
      const outcomes = await Promise.allSettled([
        updateCompanySettings(service.app.table, service.clock, company.company_id, { name: 'N'.repeat(150) }, ttlSeconds),
        updateCompanySettings(service.app.table, service.clock, company.company_id, { sms_text: long }, ttlSeconds),
      ]);
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
      const rejected = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
      expect(refusal(rejected.reason)).toMatch(/3 SMS/);
      const stored = await getCompany(service.app.table, company.company_id);
      const template = stored?.sms_text?.templates.en;
      if (template) expect(smsSize(template.replace('{brand}', stored!.name).replace('{code}', '000000')).segments).toBeLessThanOrEqual(2);
    }
  });

  it('npm run company:update --name renames, prints the sizes, and refuses a name too long with exit 2', async () => {
    const company = await newCompany(service);
    const refused = await command(updateCompanyCommand, ['--company', company.company_id, '--name', DEVANAGARI_NAME]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^company name refused, nothing changed:\nthe built-in English text: the message would need 5 SMS/);
    const renamed = await command(updateCompanyCommand, ['--company', company.company_id, '--name', ' Chai Pay ']);
    expect(renamed.code).toBe(0);
    expect(renamed.last).toMatchObject({ company_id: company.company_id });
    expect(renamed.stderr).toMatch(/sms text built-in: 1 SMS \(GSM-7, 83 units with a 6-digit code\)/);
    expect(await getCompany(service.app.table, company.company_id)).toMatchObject({ name: 'Chai Pay' });
    expect((await command(updateCompanyCommand, ['--company', company.company_id, '--name', 'x'.repeat(201)])).code).toBe(2);
  });
});

describe('a send never needs more than 2 SMS for a company stored before these checks (in process, DynamoDB Local)', () => {
  let capture: LogCapture;
  beforeAll(() => {
    capture = captureLogs();
  });
  afterAll(() => capture.stop());

  it('answers 200 and sends the built-in text with the name shortened, with a warning and the sms_text_shortened metric', async () => {
    const companyId = randomBytes(16).toString('hex');
    await putNewCompany(service.app.table, { company_id: companyId, name: DEVANAGARI_NAME, status: 'active', created_at: 0 });
    const phone = randomPhoneNumber();
    const answer = await invoke(service.handlers.loginPhone, {
      path: '/wallet/v3/auth/login_phone',
      headers: { CompanyID: companyId },
      body: { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const [message] = outboxMessages(service.app.config.sms.outboxFile, `+1${phone}`);
    expect(message).toMatch(/^\d{6} is your भारत डिजिटल .* verification code\. It expires in 5 minutes\. Never share it\.$/);
    expect(smsSize(message!).segments).toBe(2);
    const warning = capture
      .text()
      .split('\n')
      .filter((line) => line.includes(companyId) && line.includes('more than 2 SMS'))
      .map((line) => JSON.parse(line));
    expect(warning).toEqual([
      expect.objectContaining({ level: 'WARN', company_id: companyId, segments: 5, sent_template: 'built-in', brand: 'shortened' }),
    ]);
    expect(capture.text()).toMatch(/"sms_text_shortened":1/);
  });
});
