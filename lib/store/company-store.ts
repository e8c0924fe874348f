import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite } from './conditional-write.js';
import { companyKey } from './keys.js';
import type { Table } from './table.js';
import { putIfAbsent } from './transactions.js';

export type CompanyStatus = 'active' | 'disabled';

export interface CompanyRecord {
  company_id: string;
  name: string;
  status: CompanyStatus;
  created_at: number;
}

export async function getCompany(table: Table, companyId: string): Promise<CompanyRecord | undefined> {
  const { Item } = await table.client.send(new GetCommand({ TableName: table.name, Key: companyKey(companyId) }));
  return Item as CompanyRecord | undefined;
}

/** Writes a new company; false when its id is already taken. */
export async function putNewCompany(table: Table, company: CompanyRecord): Promise<boolean> {
  const { Put } = putIfAbsent(table, companyKey(company.company_id), company);
  const outcome = await conditionalWrite(table.client.send(new PutCommand(Put!)));
  return outcome.written;
}
