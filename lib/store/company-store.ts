import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite } from './conditional-write.js';
import { documentClient, tableName } from './dynamo-client.js';
import { companyKey } from './keys.js';

export type CompanyStatus = 'active' | 'disabled';

export interface CompanyRecord {
  company_id: string;
  name: string;
  status: CompanyStatus;
  created_at: number;
}

export async function getCompany(companyId: string): Promise<CompanyRecord | undefined> {
  const { Item } = await documentClient.send(new GetCommand({ TableName: tableName, Key: companyKey(companyId) }));
  return Item as CompanyRecord | undefined;
}

/** Writes a new company; false when its id is already taken. */
export async function putNewCompany(company: CompanyRecord): Promise<boolean> {
  const outcome = await conditionalWrite(
    documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...companyKey(company.company_id), ...company },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
  return outcome.written;
}
