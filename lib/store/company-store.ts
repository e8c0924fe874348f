import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite } from './conditional-write.js';
import { companyKey } from './keys.js';
import type { Table } from './table.js';
import { putIfAbsent } from './transactions.js';

export type CompanyStatus = 'active' | 'disabled';

export interface CompanyRecord {
  company_id: string;
  name: string;
  status: CompanyStatus;
  /** A customer registering themselves must prove the phone (a type-2 verification_token). */
  require_verified_phone?: boolean | undefined;
  /** ISO 3166 alpha-2 codes SMS may go to; absent: every country. */
  sms_countries?: string[] | undefined;
  created_at: number;
  updated_at?: number | undefined;
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

/** Sets the given attributes of a company (and removes sms_countries when asked); undefined when there is no such company. */
export async function updateCompany(
  table: Table,
  companyId: string,
  changes: Partial<CompanyRecord>,
  removeSmsCountries: boolean,
): Promise<CompanyRecord | undefined> {
  const set = Object.entries(changes).filter(([, value]) => value !== undefined);
  const names = Object.fromEntries(set.map(([name], index) => [`#a${index}`, name]));
  const values = Object.fromEntries(set.map(([, value], index) => [`:v${index}`, value]));
  const clauses = [
    set.length ? `SET ${set.map((_, index) => `#a${index} = :v${index}`).join(', ')}` : '',
    removeSmsCountries ? 'REMOVE sms_countries' : '',
  ]
    .filter(Boolean)
    .join(' ');
  const outcome = await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: companyKey(companyId),
        UpdateExpression: clauses,
        ConditionExpression: 'attribute_exists(pk)',
        ...(set.length ? { ExpressionAttributeNames: names, ExpressionAttributeValues: values } : {}),
        ReturnValues: 'ALL_NEW',
      }),
    ),
  );
  return outcome.written ? (outcome.result.Attributes as CompanyRecord) : undefined;
}
