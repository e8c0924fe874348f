// Back-office test staff (API contract 3.14, round 6): an employee registered by the operator with a
// device bound at registration (settled at once, 3.15), given a role, and signed in by a PIN login
// on that device: a strong session, fresh, as the back office asks (tests/harness/staff-members.ts).
import type { Company } from '../../lib/companies/companies.js';
import { employeeWithDevice, type StaffDevice, strongSession } from '../harness/staff-members.js';
import { type Account, type InProcessService, logIn } from '../helpers.js';

export { employeeWithDevice, strongSession };

export type StaffMember = Account & {
  /** A strong session: a PIN login on the device bound at registration, just now. */
  session: string;
  device: StaffDevice;
};

/** An SMS-strength session of an employee: an OTP login (the Authorization header value). */
export function smsSession(via: InProcessService, company: Company, employee: Account): Promise<string> {
  via.clock.advance(via.app.config.otp.sendIntervalSeconds + 1);
  return logIn(via, company, employee);
}

/** An employee of the company with the role (none: no role), set by the operator, signed in strongly just now. */
export async function staffMember(via: InProcessService, company: Company, role: 'support' | 'admin' | 'none'): Promise<StaffMember> {
  const employee = await employeeWithDevice(via, company, role);
  return { ...employee, session: await strongSession(via, company, employee) };
}
