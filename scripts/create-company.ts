// npm run company:create -- --name "Acme" [--sms-countries IN,US] [--require-verified-phone] [--webauthn-rp-id DOMAIN --webauthn-origins O1,O2] [--require-dpop]
// Creates an active company in the configured table (STAGE, TABLE_NAME, DYNAMODB_ENDPOINT and
// the usual AWS credentials; with none set, the local stage's DynamoDB Local) and prints
// {"company_id": "<32 hex>", "require_verified_phone": ..., "sms_countries": ...} as its last line.
// A name with which the built-in code text would need more than 2 SMS (a long name in a script
// outside the GSM alphabet: 59 UTF-16 units at most) exits 2 with the count and creates nothing.
import { parseArgs } from 'node:util';
import { COMPANY_NAME_MAX_LENGTH, companyName, createCompany, sizedSmsText } from '../lib/companies/companies.js';
import { SmsTextRefused } from '../lib/sms/sms-text.js';
import { type OperatorIo, operatorApp, runIfMain } from './operator-app.js';
import {
  OptionError,
  printedSettings,
  reportSmsSizes,
  smsCountriesOption,
  warnIfEveryCountry,
  webauthnOption,
} from './operator-options.js';

const USAGE = `usage: npm run company:create -- --name "Company name" (1 to ${COMPANY_NAME_MAX_LENGTH} characters) [--sms-countries IN,US|all] [--require-verified-phone] [--webauthn-rp-id DOMAIN --webauthn-origins O1,O2] [--require-dpop]`;

export async function main(argv: string[], io: OperatorIo): Promise<number> {
  let name: string | undefined;
  let settings: Parameters<typeof createCompany>[3];
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        name: { type: 'string' },
        'sms-countries': { type: 'string' },
        'require-verified-phone': { type: 'boolean' },
        'webauthn-rp-id': { type: 'string' },
        'webauthn-origins': { type: 'string' },
        'require-dpop': { type: 'boolean' },
      },
    });
    name = companyName(values.name ?? '');
    if (!name) throw new OptionError(`--name is required, 1 to ${COMPANY_NAME_MAX_LENGTH} characters`);
    settings = {
      require_verified_phone: values['require-verified-phone'] ?? false,
      // Every login must carry a DPoP proof: every session bound to the phone's key (contract 3.17).
      ...(values['require-dpop'] ? { require_dpop: true } : {}),
      sms_countries: await smsCountriesOption(values['sms-countries']),
    };
    const webauthn = webauthnOption(values['webauthn-rp-id'], values['webauthn-origins']);
    if (webauthn === 'none') throw new OptionError('--webauthn-rp-id none is for company:update');
    if (webauthn) settings.webauthn = webauthn;
  } catch (error) {
    io.err(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }

  const app = operatorApp(io);
  try {
    const company = await createCompany(app.table, app.clock, name, settings, app.config.otp.ttlSeconds);
    io.err(`company "${company.name}" created in table ${app.table.name}`);
    warnIfEveryCountry(company.sms_countries, io.err);
    const { sizes, warnings } = sizedSmsText(company, app.config.otp.ttlSeconds);
    reportSmsSizes(sizes, warnings, io.err);
    io.out(JSON.stringify(printedSettings(company, app.config)));
    return 0;
  } catch (error) {
    if (error instanceof SmsTextRefused) {
      io.err(`company name refused, nothing created:\n${error.message}`);
      return 2;
    }
    io.err(`could not create the company in ${app.table.name}: ${(error as Error).message}`);
    return 1;
  }
}

await runIfMain(import.meta.url, main);
