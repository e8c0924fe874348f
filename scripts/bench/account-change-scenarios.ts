import { existsSync, readFileSync } from 'node:fs';
import { userRegisterEndpoint } from '../../lib/api/user-register-endpoint.js';
import type { Company } from '../../lib/companies/companies.js';
import { type EventInput, httpEvent, type InProcessService, lambdaContext } from '../../tests/harness/in-process-service.js';
import type { Answer, ScenarioSpec } from './warm-latency.js';

// The warm-call scenarios of a new phone number and of deletion (API contract 3.11). Both take
// fresh proof of the holder, so every call has its own customer with a session begun by OTP login
// moments before, and each phone change a type-2 proof of its new number verified with that
// session's token: all set up unmeasured. Refusals for a session begun by registration come first,
// while those sessions live (a phone change ends them).

const CHANGE = '/wallet/v3/user/phone/change';
const DELETE = '/wallet/v3/user/delete';
const LOGIN = '/wallet/v3/auth/login_phone';
const VERIFY = '/wallet/v3/auth/verify_otp';

interface Customer {
  phone: string;
  /** The registration's session: no fresh proof of the holder. */
  registered: string;
  /** A session begun by OTP login during the setup. */
  fresh: string;
}

/** The latest code the local outbox holds for each E.164 number; texts without one (a phone change's warning) are passed over. */
export function latestCodes(outboxFile: string): Map<string, string> {
  const codes = new Map<string, string>();
  if (!existsSync(outboxFile)) return codes;
  for (const line of readFileSync(outboxFile, 'utf8').split('\n').filter(Boolean)) {
    const { phone_number: phone, message } = JSON.parse(line) as { phone_number: string; message: string };
    const code = message.match(/\b(\d{6})\b/)?.[1];
    if (code) codes.set(phone, code);
  }
  return codes;
}

/** The headers of a call to the company, with a token when given. */
export const companyHeaders =
  (company: Company) =>
  (authorization?: string): Record<string, string> => ({
    CompanyID: company.company_id,
    ...(authorization ? { Authorization: authorization } : {}),
  });

/** A call that sets a scenario up (not measured): it must answer 200. */
export async function setup(handler: InProcessService['handlers']['userRegister'], input: EventInput): Promise<Answer> {
  const result = await handler(httpEvent(input), lambdaContext());
  if (result.statusCode !== 200) throw new Error(`setup call answered ${result.statusCode}: ${result.body}`);
  return { status: result.statusCode, body: JSON.parse(result.body ?? 'null') };
}

/** Fails the row when a refusal carries another code than the one it stands for. */
const refusedWith = (code: number) => (index: number, answer: Answer) => {
  if (answer.body.error[0] !== code) throw new Error(`call ${index} answered code ${answer.body.error[0]}, expected ${code}`);
};

/**
 * `phones`: 3 x calls numbers no one holds: the movers' numbers, the new numbers they move to, and
 * the numbers of the customers who ask for a held number and are then deleted.
 */
export async function runAccountChangeScenarios(
  service: InProcessService,
  company: Company,
  phones: string[],
  run: (spec: ScenarioSpec) => Promise<unknown>,
  progress: (line: string) => void,
): Promise<void> {
  const { app, clock, handlers } = service;
  const calls = phones.length / 3;
  if (!Number.isInteger(calls) || calls < 2) throw new Error('the account change scenarios need 3 phones per call, and 2 calls at least');
  const moverPhones = phones.slice(0, calls);
  const newNumbers = phones.slice(calls, 2 * calls);
  const leaverPhones = phones.slice(2 * calls);
  const headers = companyHeaders(company);
  const target = (phone: string, otpType: number) => ({ dial_code: '+1', phone_number: phone, user_type: 2, otp_type: otpType });
  /** Codes of one type sent to each phone (with the token beside each, if any), then checked: the verify_otp answers. */
  const codesChecked = async (sends: { phone: string; authorization?: string }[], otpType: number): Promise<Answer[]> => {
    for (const { phone, authorization } of sends) {
      await setup(handlers.loginPhone, { path: LOGIN, headers: headers(authorization), body: target(phone, otpType) });
    }
    const codes = latestCodes(app.config.sms.outboxFile);
    const answers: Answer[] = [];
    for (const { phone, authorization } of sends) {
      const body = { ...target(phone, otpType), otp: codes.get(`+1${phone}`) };
      answers.push(await setup(handlers.verifyOtp, { path: VERIFY, headers: headers(authorization), body }));
    }
    return answers;
  };

  // Setup, not measured: a customer per phone, each logged in by OTP just now.
  const customers = async (customerPhones: string[]): Promise<Customer[]> => {
    const registered: string[] = [];
    for (const phone of customerPhones) {
      const body = {
        ...userRegisterEndpoint.examples.request,
        phone_number: phone,
        email: `account.change.${phone}@example.com`,
        referral_code: '',
      };
      registered.push(`Token ${(await setup(handlers.userRegister, { path: '/r', headers: headers(), body })).body.data.token.token}`);
    }
    const logins = await codesChecked(
      customerPhones.map((phone) => ({ phone })),
      1,
    );
    return customerPhones.map((phone, index) => ({
      phone,
      registered: registered[index]!,
      fresh: `Token ${logins[index]!.body.data.token.token}`,
    }));
  };
  progress(`setting up ${2 * calls} customers logged in by OTP and ${2 * calls} phone proofs`);
  const movers = await customers(moverPhones);
  const leavers = await customers(leaverPhones);
  // A proof of each mover's new number, verified with the mover's fresh token.
  const proofs = (
    await codesChecked(
      movers.map(({ fresh }, index) => ({ phone: newNumbers[index]!, authorization: fresh })),
      2,
    )
  ).map(({ body }) => body.data.verification_token as string);
  // A proof of the next leaver's number (held by a customer whom an OTP login proved), once its
  // login code's send interval is over.
  clock.advance(app.config.otp.sendIntervalSeconds + 1);
  try {
    const heldProofs = (
      await codesChecked(
        leavers.map(({ fresh }, index) => ({ phone: leavers[(index + 1) % calls]!.phone, authorization: fresh })),
        2,
      )
    ).map(({ body }) => body.data.verification_token as string);

    // A session begun by OTP login sends the login PIN too, and its change waits (contract 3.11, round 5).
    const loginPin = String(userRegisterEndpoint.examples.request.login_pin);
    const change = (authorization: string, phone: string, proof: string) => ({
      path: CHANGE,
      headers: headers(authorization),
      body: { dial_code: '+1', phone_number: phone, user_type: 2, phone_verification_token: proof, login_pin: loginPin },
    });
    const changes = { endpoint: 'userPhoneChange' as const, handler: handlers.userPhoneChange, calls };
    await run({
      ...changes,
      outcome: 'session not fresh (400, code 14)',
      expectStatus: 400,
      event: (index) => change(movers[index]!.registered, newNumbers[index]!, proofs[index]!),
      onAnswer: refusedWith(14),
    });
    const deletion = (authorization: string) => ({ path: DELETE, headers: headers(authorization), body: {} });
    const deletes = { endpoint: 'userDelete' as const, handler: handlers.userDelete, calls };
    await run({
      ...deletes,
      outcome: 'session not fresh (400, code 14)',
      expectStatus: 400,
      event: (index) => deletion(leavers[index]!.registered),
      onAnswer: refusedWith(14),
    });
    // Each ends the registration's session; the old number is told by SMS.
    await run({
      ...changes,
      outcome: 'change pending',
      smsPerCall: 1,
      expectStatus: 200,
      event: (index) => change(movers[index]!.fresh, newNumbers[index]!, proofs[index]!),
      onAnswer: (index, { body }) => {
        if (body.data.pending !== 1) throw new Error(`call ${index} answered ${JSON.stringify(body.data)}, expected a pending change`);
      },
    });
    await run({
      ...changes,
      outcome: 'number held by a proven user (409, code 7)',
      expectStatus: 409,
      event: (index) => change(leavers[index]!.fresh, leavers[(index + 1) % calls]!.phone, heldProofs[index]!),
      onAnswer: refusedWith(7),
    });
    // Each leaver has two sessions (the registration's and the login's) and no device. From an OTP session
    // the deletion waits (contract 3.15, second reading: a held change of kind delete), its warning texted.
    await run({
      ...deletes,
      outcome: 'held (a fresh OTP session)',
      smsPerCall: 1,
      expectStatus: 200,
      event: (index) => deletion(leavers[index]!.fresh),
      onAnswer: (index, { body }) => {
        if (body.data.pending !== 1) throw new Error(`call ${index} answered ${JSON.stringify(body.data)}, expected a held deletion`);
      },
    });
  } finally {
    clock.reset();
  }
}
