// npm run company:update -- --company ID [--name NAME] [--status active|disabled] [--sms-countries IN,US|all] [--require-verified-phone on|off] [--require-dpop on|off]
//   [--sms-per-hour N|default] [--sms-per-prefix-per-hour N|default] [--sends-per-address-per-hour N|default] [--verifies-per-address N|default]
//   [--sms-template LANG=TEXT ...] [--sms-default-language LANG] [--sms-app-hash HASH] [--sms-webotp-domain DOMAIN]
//   [--warning-text KIND:LANG=TEXT ...] [--phone-change-text LANG=TEXT ...] [--webauthn-rp-id DOMAIN|none --webauthn-origins O1,O2]
// Changes a company's settings (API contract 6 and 7) and prints them as a JSON object, its last
// line, with the limits in force (the company's own, or the configured default).
// `--sms-template LANG=` removes a template; an empty value removes the other SMS text settings. A refused SMS text exits 2 with every problem on stderr and changes nothing.
// A new name is sized with every code text as a template is: one that would make a text need more than 2 SMS exits 2 the same way.
// `--warning-text KIND:LANG=TEXT` sets a security warning's text in that language: KIND a held change's kind (phone,
// login_pin, transaction_pin, device_remove, delete, profile, export) or new_device ({brand}, no {code}, no run of 4
// digits; sized as a template, with the name), `KIND:LANG=` removes it; refused the same way.
// `--phone-change-text LANG=TEXT` is `--warning-text phone:LANG=TEXT`: the old number's warning while a move waits and once it is done.
// Warm functions keep a company for COMPANY_CACHE_SECONDS (30 s): new requests see the change
// within that time. Same configuration as company:create.
import { parseArgs } from 'node:util';
import { COMPANY_NAME_MAX_LENGTH, type CompanySettings, companyName, updateCompanySettings } from '../lib/companies/companies.js';
import { WARNING_KEYS, type WarningTextChange, warningTextName } from '../lib/companies/security-warning-texts.js';
import { AppError } from '../lib/errors.js';
import { HEX_ID_PATTERN } from '../lib/ids.js';
import { SmsTextRefused } from '../lib/sms/sms-text.js';
import { type OperatorIo, operatorApp, runIfMain } from './operator-app.js';
import {
  LIMIT_OPTIONS,
  limitsOption,
  OptionError,
  onOffOption,
  printedSettings,
  reportSmsSizes,
  smsCountriesOption,
  smsPaymentLimitOption,
  smsTextOptions,
  warnIfEveryCountry,
  webauthnOption,
} from './operator-options.js';

const USAGE =
  `usage: npm run company:update -- --company <company id> [--name NAME (1 to ${COMPANY_NAME_MAX_LENGTH} characters)] [--status active|disabled]\n` +
  '  [--sms-countries IN,US|all] [--require-verified-phone on|off] [--require-dpop on|off] [--sms-payment-limit EUR=100,USD=50|none]\n' +
  '  [--sms-template LANG=TEXT (repeatable; {code}, {brand}, {minutes}; LANG= removes one)] [--sms-default-language LANG]\n' +
  '  [--sms-app-hash HASH (11 characters)] [--sms-webotp-domain DOMAIN] (an empty value removes a setting)\n' +
  `  [--warning-text KIND:LANG=TEXT (repeatable; a security warning's SMS, KIND one of ${WARNING_KEYS.join(', ')}: {brand}, no {code};
` +
  '    KIND:LANG= removes one)] [--phone-change-text LANG=TEXT (repeatable; --warning-text phone:LANG=TEXT)]\n' +
  '  [--webauthn-rp-id DOMAIN|none --webauthn-origins https://wallet.example.com,android:apk-key-hash:HASH (passkeys, contract 3.16)]' +
  `\n  ${Object.keys(LIMIT_OPTIONS)
    .map((option) => `[--${option} N|default]`)
    .join(' ')}`;

/**
 * --warning-text KIND:LANG=TEXT and --phone-change-text LANG=TEXT (the phone kind's), repeated; an empty
 * TEXT removes the language's. An unknown KIND is left to the rules, which refuse it with the texts' other problems.
 */
function warningTextOptions(values: { 'warning-text'?: string[] | undefined; 'phone-change-text'?: string[] | undefined }) {
  const changes: WarningTextChange[] = [];
  for (const option of values['phone-change-text'] ?? []) {
    const separator = option.indexOf('=');
    if (separator < 1) throw new OptionError(`--phone-change-text takes LANG=TEXT (LANG= removes one); not ${JSON.stringify(option)}`);
    const text = option.slice(separator + 1);
    changes.push({ warning: 'phone', language: option.slice(0, separator), text: text === '' ? null : text });
  }
  for (const option of values['warning-text'] ?? []) {
    const separator = option.indexOf('=');
    const colon = option.indexOf(':');
    if (colon < 1 || separator < colon + 2) {
      throw new OptionError(`--warning-text takes KIND:LANG=TEXT (KIND:LANG= removes one); not ${JSON.stringify(option)}`);
    }
    const text = option.slice(separator + 1);
    changes.push({ warning: option.slice(0, colon), language: option.slice(colon + 1, separator), text: text === '' ? null : text });
  }
  return changes.length ? changes : undefined;
}

export async function main(argv: string[], io: OperatorIo): Promise<number> {
  let companyId = '';
  let settings: CompanySettings = {};
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        company: { type: 'string' },
        name: { type: 'string' },
        status: { type: 'string' },
        'sms-countries': { type: 'string' },
        'require-verified-phone': { type: 'string' },
        'require-dpop': { type: 'string' },
        'sms-payment-limit': { type: 'string' },
        ...Object.fromEntries(Object.keys(LIMIT_OPTIONS).map((option) => [option, { type: 'string' as const }])),
        'sms-template': { type: 'string', multiple: true },
        'sms-default-language': { type: 'string' },
        'sms-app-hash': { type: 'string' },
        'sms-webotp-domain': { type: 'string' },
        'phone-change-text': { type: 'string', multiple: true },
        'warning-text': { type: 'string', multiple: true },
        'webauthn-rp-id': { type: 'string' },
        'webauthn-origins': { type: 'string' },
      },
    });
    companyId = values.company?.trim().toLowerCase() ?? '';
    if (!HEX_ID_PATTERN.test(companyId)) throw new OptionError('--company takes a company id (32 hex characters)');
    const name = values.name === undefined ? undefined : companyName(values.name);
    if (values.name !== undefined && !name) throw new OptionError(`--name takes 1 to ${COMPANY_NAME_MAX_LENGTH} characters`);
    const status = values.status;
    if (status !== undefined && status !== 'active' && status !== 'disabled') throw new OptionError('--status takes active or disabled');
    settings = {
      name,
      status,
      require_verified_phone: onOffOption('require-verified-phone', values['require-verified-phone']),
      require_dpop: onOffOption('require-dpop', values['require-dpop']),
      sms_countries: await smsCountriesOption(values['sms-countries']),
      sms_payment_limit: smsPaymentLimitOption(values['sms-payment-limit']),
      limits: limitsOption(values),
      sms_text: smsTextOptions(values),
      warning_texts: warningTextOptions(values),
      webauthn: webauthnOption(values['webauthn-rp-id'], values['webauthn-origins']),
    };
    if (Object.values(settings).every((value) => value === undefined)) throw new OptionError('nothing to change');
  } catch (error) {
    io.err(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }

  const app = operatorApp(io);
  try {
    const {
      company,
      smsText,
      warningSizes = {},
    } = await updateCompanySettings(app.table, app.clock, companyId, settings, app.config.otp.ttlSeconds);
    io.err(`company ${companyId} updated; functions see it within ${app.config.companyCacheSeconds} s`);
    warnIfEveryCountry(company.sms_countries, io.err);
    if (smsText) reportSmsSizes(smsText.sizes, smsText.warnings, io.err);
    for (const [warning, sizes] of Object.entries(warningSizes)) {
      for (const [language, size] of Object.entries(sizes)) {
        io.err(`${warningTextName(warning, language)}: ${size.segments} SMS (${size.encoding}, ${size.units} units with the company name)`);
      }
    }
    io.out(JSON.stringify(printedSettings(company, app.config)));
    return 0;
  } catch (error) {
    if (error instanceof SmsTextRefused) {
      io.err(`${settings.sms_text || settings.warning_texts ? 'SMS text' : 'company name'} refused, nothing changed:\n${error.message}`);
      return 2;
    }
    io.err(
      error instanceof AppError
        ? `no company ${companyId} in table ${app.table.name}`
        : `could not update the company: ${(error as Error).message}`,
    );
    return 1;
  }
}

await runIfMain(import.meta.url, main);
