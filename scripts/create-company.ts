// npm run company:create -- --name "Acme"
// Creates an active company in the configured table (STAGE, TABLE_NAME, DYNAMODB_ENDPOINT and
// the usual AWS credentials; with none set, the local stage's DynamoDB Local) and prints
// {"company_id": "<32 hex>"} as its last line.
import { parseArgs } from 'node:util';
import { createApp } from '../lib/app.js';
import { createCompany } from '../lib/companies/companies.js';
import { readConfig } from '../lib/config.js';

const { values } = parseArgs({ options: { name: { type: 'string' } } });
const name = values.name?.trim();
if (!name || name.length > 200) {
  console.error('usage: npm run company:create -- --name "Company name" (1 to 200 characters)');
  process.exit(2);
}

const app = createApp(readConfig());
try {
  const company = await createCompany(app.table, app.clock, name);
  console.error(`company "${company.name}" created in table ${app.table.name}`);
  console.log(JSON.stringify({ company_id: company.company_id }));
} catch (error) {
  console.error(`could not create the company in ${app.table.name}: ${(error as Error).message}`);
  process.exit(1);
}
