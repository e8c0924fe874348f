// A company whose name was stored before names were sized (200 Devanagari characters: the
// built-in text would need 5 SMS) over HTTP: login_phone answers 200, the text in the outbox
// needs 2 SMS with the name cut after a whole word, and the function logs a warning and counts
// sms_text_shortened.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { smsSize } from '../../lib/sms/sms-segments.js';
import { putNewCompany } from '../../lib/store/company-store.js';
import { expectDocumented } from '../e2e/conformance.js';
import { useOfflineService } from '../e2e/offline-server.js';
import { outboxMessages, randomPhoneNumber } from '../helpers.js';

const service = useOfflineService();
const NAME = 'भारत डिजिटल भुगतान वॉलेट सेवा '.repeat(7).slice(0, 200);

describe('a code text over 2 SMS is shortened at send time, over HTTP', () => {
  it('answers 200 and sends the built-in text in 2 SMS, with a warning and the metric in the logs', async () => {
    const companyId = randomBytes(16).toString('hex');
    await putNewCompany(service.server.local.app.table, { company_id: companyId, name: NAME, status: 'active', created_at: 0 });
    const phone = randomPhoneNumber();
    const path = '/wallet/v3/auth/login_phone';
    const response = await fetch(`${service.server.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', CompanyID: companyId },
      body: JSON.stringify({ dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 }),
    });
    const answer = { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
    expectDocumented({ method: 'POST', path, ...answer });
    expect(answer.status).toBe(200);

    const [message] = outboxMessages(service.server.env.SMS_OUTBOX_FILE!, `+1${phone}`);
    // 59 units of the name fit beside the built-in text's 75: two whole repeats of the phrase, less its last space.
    expect(message).toMatch(
      new RegExp(`^\\d{6} is your ${NAME.slice(0, 59)} verification code\\. It expires in 5 minutes\\. Never share it\\.$`),
    );
    expect(smsSize(message!)).toEqual({ encoding: 'UCS-2', units: 134, segments: 2 });
    const warning = service.server
      .output()
      .split('\n')
      .filter((line) => line.includes(companyId) && line.includes('more than 2 SMS'));
    expect(warning.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ level: 'WARN', company_id: companyId, language: 'built-in', segments: 5, brand: 'shortened' }),
    ]);
    expect(service.server.output()).toMatch(/"sms_text_shortened":1/);
  });
});
