import { randomInt } from 'node:crypto';
import { type Answer, sampleRegistration } from '../in-process-service.js';
import type { ChaosContext } from './context.js';

// Hostile requests: a broken body, an unknown company, a forged token, a malformed
// Idempotency-Key. Each has its refusal, faults or not (a 503 aside).

export function hostileRequests({ call, wrong }: ChaosContext) {
  const hostile = async () => {
    const cases: [() => Promise<Answer>, number][] = [
      [() => call('userRegister', '{"broken', {}), 400],
      [() => call('userRegister', sampleRegistration(), { CompanyID: 'nope' }), 400],
      [() => call('referralProgram', undefined, { Authorization: 'Token forged' }, 'GET'), 401],
      [() => call('userRegister', sampleRegistration(), { 'Idempotency-Key': ' spaced key ' }), 400],
    ];
    const [send, status] = cases[randomInt(cases.length)]!;
    const answer = await send();
    if (answer.status !== status && answer.status !== 503) wrong(`a hostile request answered ${answer.status}, not ${status}`, answer);
  };
  return { hostile };
}
