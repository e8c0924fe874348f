import type { Config } from '../config.js';
import { duration } from '../http/endpoint.js';

// What every route of the back office asks of its caller (API contract 3.14, round 6), in the
// words of the published document: one sentence, so that no route's description says it otherwise.

/** "Needs an employee token with <who> on a strong session ...": the gate of lib/staff/staff-gate.ts, as the document states it. */
export function staffSessionRule(config: Config, who: 'a role' | 'the admin role', terms: { fresh?: boolean } = {}): string {
  const fresh = terms.fresh
    ? `, proven (a login or step-up) under ${duration(config.stepUpMaxAgeSeconds)} ago (else data.needs "strong_fresh")`
    : '';
  return (
    `Needs an employee token with ${who} (else 403 code 5) on a strong session, a PIN login on a settled device or a ` +
    `passkey (else 403 code 5 with data.needs "strong"), begun under ${duration(config.admin.sessionSeconds)} ago ` +
    `(else 400 code 14)${fresh}, and a reason (1 to 200 characters, such as a ticket number), kept in the record.`
  );
}
