// The console counts a text's SMS as it is typed (console/src/sms-size.ts), by the service's rule
// written again, since the page imports nothing of lib/: both must count every text alike.
import { describe, expect, it } from 'vitest';
import { codeMessage, STANDARD_UNITS, smsSize, warningMessage } from '../../console/src/sms-size.js';
import { warningMessage as serviceWarningMessage } from '../../lib/companies/security-warning-texts.js';
import { SMS_SEGMENT_UNITS, smsSize as serviceSmsSize } from '../../lib/sms/sms-segments.js';
import { LONGEST_CODE, smsMessage } from '../../lib/sms/sms-text.js';

const texts = {
  'plain GSM-7': 'Your code is 000000.',
  'GSM-7, 160 septets: one SMS': 'a'.repeat(160),
  'GSM-7, 161 septets: two': 'a'.repeat(161),
  'GSM-7, 306 septets: two': 'a'.repeat(306),
  'GSM-7, 307 septets: three': 'a'.repeat(307),
  'an extension character takes 2 septets': `${'a'.repeat(159)}€`,
  'an escape pair is not split across parts': `${'a'.repeat(152)}[${'b'.repeat(10)}`,
  'Greek and accented letters of the GSM alphabet': 'ΔΦΓΛΩΠΨΣΘΞ èéùìò ÄÖÑÜ§¿ äöñüà',
  'one Hindi letter makes it UCS-2': `Code 000000 ${'a'.repeat(60)} क`,
  'UCS-2, 70 units: one SMS': 'क'.repeat(70),
  'UCS-2, 71 units: two': 'क'.repeat(71),
  'UCS-2, 135 units: three': 'क'.repeat(135),
  'an emoji is 2 units and never split': `${'क'.repeat(66)}🙂${'क'.repeat(10)}`,
  'a curly quote is not GSM-7': '’'.repeat(10),
  empty: '',
};

describe('the console’s SMS count (console/src/sms-size.ts)', () => {
  it('has the service’s units of one SMS and of a part', () => {
    expect(STANDARD_UNITS).toEqual(SMS_SEGMENT_UNITS);
  });

  it.each(Object.entries(texts))('%s: the same encoding, units and SMS as the service', (_, text) => {
    expect(smsSize(text)).toEqual(serviceSmsSize(text));
  });

  it('builds a code text as the service sends it: placeholders in one pass, then the app hash and WebOTP lines', () => {
    const settings = { templates: {}, app_hash: 'FA+9qCX9VSu', webotp_domain: 'wallet.example.com' };
    for (const [template, brand] of [
      ['{code} is your {brand} code. It expires in {minutes} minutes.', 'Acme'],
      ['{brand} {brand}: {code}', 'A name with {code} and $& in it'],
      ['कोड {code} है — {brand}', 'Dukaan'],
    ] as const) {
      for (const withLines of [true, false]) {
        const lines = withLines ? settings : { templates: {} };
        const service = smsMessage(template, { code: LONGEST_CODE, brand, ttlSeconds: 300 }, lines);
        const page = codeMessage(template, {
          code: LONGEST_CODE,
          brand,
          minutes: 5,
          appHash: withLines ? settings.app_hash : undefined,
          webotpDomain: withLines ? settings.webotp_domain : undefined,
        });
        expect(page).toBe(service);
        expect(smsSize(page)).toEqual(serviceSmsSize(service));
      }
    }
    expect(warningMessage('Your {brand} account moved. Call {brand}.', 'Pay $& Co')).toBe(
      serviceWarningMessage('Your {brand} account moved. Call {brand}.', 'Pay $& Co'),
    );
  });
});
