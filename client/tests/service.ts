import { useOfflineService } from '../../tests/e2e/offline-server.js';
import { lastCodeSentTo, newCompany, outboxMessages, sampleRegistration } from '../../tests/helpers.js';
import { createWalletAuthClient, type WalletAuthClientOptions } from '../src/index.js';

// The service the client's tests call: the run's shared serverless-offline, over HTTP. The tests
// set up a company and read the SMS outbox through the test harness; every call under test goes
// through the client and the network.

export function useClientService() {
  const fixture = useOfflineService();
  return {
    get baseUrl() {
      return fixture.server.baseUrl;
    },
    get companyId() {
      return fixture.company.company_id;
    },
    client(options: Partial<WalletAuthClientOptions> = {}) {
      return createWalletAuthClient({ baseUrl: fixture.server.baseUrl, companyId: fixture.company.company_id, ...options });
    },
    /** Another company of the same service. */
    async otherCompanyId(): Promise<string> {
      return (await newCompany(fixture.server.local)).company_id;
    },
    /** The last code texted to a number (E.164). */
    lastCode(phone: string): string {
      return lastCodeSentTo(fixture.server.local, phone);
    },
    /** How many texts went to a number (E.164). */
    textsTo(phone: string): number {
      return outboxMessages(fixture.server.local.app.config.sms.outboxFile, phone).length;
    },
    registration: (overrides: Record<string, unknown> = {}) =>
      sampleRegistration(overrides) as Record<string, unknown> & { phone_number: string },
  };
}

/** A fetch that records every request it passes on, and can drop the answers of the ones a test picks. */
export function recordingFetch(dropAnswerOf: (url: string, call: number) => boolean = () => false) {
  const calls: { url: string; method: string; headers: Record<string, string>; status?: number }[] = [];
  const fetchThrough: typeof fetch = async (input, init) => {
    const url = String(input);
    const call: (typeof calls)[number] = { url, method: init?.method ?? 'GET', headers: { ...(init?.headers as Record<string, string>) } };
    calls.push(call);
    const response = await fetch(input, init);
    call.status = response.status;
    if (dropAnswerOf(url, calls.filter((call) => call.url === url).length)) {
      await response.arrayBuffer();
      throw new TypeError('fetch failed: the connection closed before the answer came');
    }
    return response;
  };
  return { fetch: fetchThrough, calls };
}
