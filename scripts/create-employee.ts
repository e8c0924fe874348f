// npm run employee:create -- --company <company id> < employee.json
// Registers an employee (the registration body of API contract 3.1, read from standard input so
// that the password and PINs stay out of shell history) as an operator, for a company's first
// employee. Prints {"user_id": "...", "token": "..."} as its last line. Same configuration as
// company:create.
import { text } from 'node:stream/consumers';
import { parseArgs } from 'node:util';
import { AppError } from '../lib/errors.js';
import { operatorRegistration, userRegister } from '../lib/users/user-register.js';
import { userRegisterBody } from '../lib/users/user-register-input.js';
import { UserType } from '../lib/users/user-types.js';
import { parseInput } from '../lib/validation.js';
import { operatorApp } from './operator-app.js';

const { values } = parseArgs({ options: { company: { type: 'string' } } });
const companyId = values.company?.trim().toLowerCase();
if (!companyId) {
  console.error('usage: npm run employee:create -- --company <company id> < employee.json');
  process.exit(2);
}

try {
  const app = operatorApp();
  const body = JSON.parse(await text(process.stdin)) as Record<string, unknown>;
  const input = await parseInput(userRegisterBody, { ...body, user_type: UserType.EMPLOYEE });
  const company = await app.companies.require(companyId);
  const result = await userRegister(app, operatorRegistration(company, input));
  console.log(JSON.stringify({ user_id: result.user_id, token: result.token.token }));
} catch (error) {
  if (error instanceof AppError) {
    console.error(`could not create the employee: ${error.errorName}`);
    for (const field of error.fields ?? []) console.error(`  ${field.field}: ${field.detail}`);
  } else {
    console.error(`could not create the employee: ${(error as Error).message}`);
  }
  process.exit(1);
}
