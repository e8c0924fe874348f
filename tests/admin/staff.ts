// Back-office test staff: an employee given a role by the operator, with a fresh OTP session.
import { setEmployeeRole } from '../../lib/admin/employee-role.js';
import type { Company } from '../../lib/companies/companies.js';
import { type Account, type InProcessService, logIn, newEmployee } from '../helpers.js';

export type StaffMember = Account & { session: string };

/** An employee of the company with the role (none: no role), logged in by code just now. */
export async function staffMember(via: InProcessService, company: Company, role: 'support' | 'admin' | 'none'): Promise<StaffMember> {
  const employee = await newEmployee(via, company);
  if (role !== 'none') {
    await setEmployeeRole(via.app, { companyId: company.company_id, actorId: 'operator', userId: employee.userId, role, reason: 'setup' });
  }
  return { ...employee, session: await logIn(via, company, employee) };
}
