// npm run company:update -- --company ID [--status active|disabled] [--sms-countries IN,US|all] [--require-verified-phone on|off]
// Changes a company's settings (API contract 6) and prints them as a JSON object, its last line.
// Warm functions keep a company for COMPANY_CACHE_SECONDS (30 s): new requests see the change
// within that time. Same configuration as company:create.
import { parseArgs } from 'node:util';
import { createApp } from '../lib/app.js';
import { updateCompanySettings } from '../lib/companies/companies.js';
import { readConfig } from '../lib/config.js';
import { AppError } from '../lib/errors.js';
import { OptionError, onOffOption, printedSettings, smsCountriesOption, warnIfEveryCountry } from './operator-options.js';

const USAGE =
  'usage: npm run company:update -- --company <company id> [--status active|disabled] [--sms-countries IN,US|all] [--require-verified-phone on|off]';

let companyId = '';
let settings: Parameters<typeof updateCompanySettings>[3] = {};
try {
  const { values } = parseArgs({
    options: {
      company: { type: 'string' },
      status: { type: 'string' },
      'sms-countries': { type: 'string' },
      'require-verified-phone': { type: 'string' },
    },
  });
  companyId = values.company?.trim().toLowerCase() ?? '';
  if (!/^[0-9a-f]{32}$/.test(companyId)) throw new OptionError('--company takes a company id (32 hex characters)');
  const status = values.status;
  if (status !== undefined && status !== 'active' && status !== 'disabled') throw new OptionError('--status takes active or disabled');
  settings = {
    status,
    require_verified_phone: onOffOption('require-verified-phone', values['require-verified-phone']),
    sms_countries: smsCountriesOption(values['sms-countries']),
  };
  if (Object.values(settings).every((value) => value === undefined)) throw new OptionError('nothing to change');
} catch (error) {
  console.error(`${(error as Error).message}\n${USAGE}`);
  process.exit(2);
}

const app = createApp(readConfig());
try {
  const company = await updateCompanySettings(app.table, app.clock, companyId, settings);
  console.error(`company ${companyId} updated; functions see it within ${app.config.companyCacheSeconds} s`);
  warnIfEveryCountry(company.sms_countries);
  console.log(JSON.stringify(printedSettings(company)));
} catch (error) {
  console.error(
    error instanceof AppError
      ? `no company ${companyId} in table ${app.table.name}`
      : `could not update the company: ${(error as Error).message}`,
  );
  process.exit(1);
}
