// npm run employee:create -- --company <company id> [--role admin|support] < employee.json
// Registers an employee (the registration body of API contract 3.1, read from standard input so
// that the password and PINs stay out of shell history) as an operator, with a back-office role
// (API contract 3.14): admin by default, for a company's first employee. The one path where one
// person gives a role alone (round 6: through the API a role that gives power takes two admins),
// so it needs cloud credentials; recorded as employee_register and role by `operator`. A
// device_public_key in the body binds a device settled at once (contract 3.15), whose PIN logins
// are strong. Prints {"user_id": "...", "token": "...", "role": "..."} as its last line. Same
// configuration as company:create.
import { parseArgs } from 'node:util';
import { setEmployeeRole } from '../lib/admin/employee-role.js';
import { AppError } from '../lib/errors.js';
import { operatorRegistration, userRegister } from '../lib/registration/user-register.js';
import { userRegisterBody } from '../lib/registration/user-register-input.js';
import { OPERATOR } from '../lib/staff/employee-register.js';
import { UserType } from '../lib/users/user-types.js';
import { parseInput } from '../lib/validation.js';
import { type OperatorIo, operatorApp, runIfMain } from './operator-app.js';

export async function main(argv: string[], io: OperatorIo): Promise<number> {
  const usage = () => {
    io.err('usage: npm run employee:create -- --company <company id> [--role admin|support] < employee.json');
    return 2;
  };
  let values: { company?: string | undefined; role?: string | undefined };
  try {
    values = parseArgs({ args: argv, options: { company: { type: 'string' }, role: { type: 'string' } } }).values;
  } catch {
    return usage();
  }
  const companyId = values.company?.trim().toLowerCase();
  const wanted = values.role?.trim().toLowerCase() ?? 'admin';
  if (!companyId || (wanted !== 'admin' && wanted !== 'support')) return usage();

  try {
    const app = operatorApp(io);
    const body = JSON.parse(await io.input()) as Record<string, unknown>;
    const input = await parseInput(userRegisterBody, { ...body, user_type: UserType.EMPLOYEE });
    const company = await app.companies.require(companyId);
    const result = await userRegister(app, operatorRegistration(company, input));
    const { role } = await setEmployeeRole(app, {
      companyId,
      actorId: OPERATOR,
      userId: result.user_id,
      role: wanted,
      reason: 'npm run employee:create',
    });
    io.out(JSON.stringify({ user_id: result.user_id, token: result.token.token, role }));
    return 0;
  } catch (error) {
    if (error instanceof AppError) {
      io.err(`could not create the employee: ${error.errorName}`);
      for (const field of error.fields ?? []) io.err(`  ${field.field}: ${field.detail}`);
    } else {
      io.err(`could not create the employee: ${(error as Error).message}`);
    }
    return 1;
  }
}

await runIfMain(import.meta.url, main);
