// A company's own SMS text over HTTP: serverless-offline passes Accept-Language through to the
// function as API Gateway does, and the message in the outbox is the company's Hindi template
// with the app hash as its last line.
import { describe, expect, it } from 'vitest';
import { updateCompanySettings } from '../../lib/companies/companies.js';
import { outboxMessages, randomPhoneNumber } from '../helpers.js';
import { expectDocumented } from './conformance.js';
import { useOfflineService } from './offline-server.js';

const service = useOfflineService();

async function sendCode(phone: string, acceptLanguage: string) {
  const path = '/wallet/v3/auth/login_phone';
  const response = await fetch(`${service.server.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', CompanyID: service.company.company_id, 'Accept-Language': acceptLanguage },
    body: JSON.stringify({ dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 }),
  });
  const answer = { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
  expectDocumented({ method: 'POST', path, ...answer });
  return answer;
}

describe('SMS text per company and language over HTTP', () => {
  it('sends the Hindi template with the app hash for Accept-Language: hi-IN,hi;q=0.9,en;q=0.8, English for en', async () => {
    const { local } = service.server;
    await updateCompanySettings(
      local.app.table,
      local.clock,
      service.company.company_id,
      {
        sms_text: {
          templates: [
            { language: 'hi', text: '{code} आपका {brand} सत्यापन कोड है। {minutes} मिनट तक मान्य।' },
            { language: 'en', text: 'Your {brand} code: {code}' },
          ],
          app_hash: 'FA+9qCX9VSu',
        },
      },
      local.app.config.otp.ttlSeconds,
    );
    const outbox = service.server.env.SMS_OUTBOX_FILE!;
    const [hindi, english] = [randomPhoneNumber(), randomPhoneNumber()];

    expect((await sendCode(hindi, 'hi-IN,hi;q=0.9,en;q=0.8')).status).toBe(200);
    expect(outboxMessages(outbox, `+1${hindi}`)).toEqual([
      expect.stringMatching(new RegExp(`^\\d{6} आपका ${service.company.name} सत्यापन कोड है। 5 मिनट तक मान्य।\\nFA\\+9qCX9VSu$`)),
    ]);
    expect((await sendCode(english, 'en-US,en;q=0.9')).status).toBe(200);
    expect(outboxMessages(outbox, `+1${english}`)).toEqual([expect.stringMatching(/^Your .* code: \d{6}\nFA\+9qCX9VSu$/)]);
  });
});
