import { GetCommand, PutCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite } from './conditional-write.js';
import { companyKey } from './keys.js';
import type { Table } from './table.js';
import { ConditionsFailed, type LabelledItem, putIfAbsent, writeTransaction } from './transactions.js';

export type CompanyStatus = 'active' | 'disabled';

/** A company's own SMS text (contract 7); checked by lib/sms/sms-text.ts before it is stored. */
export interface SmsTextSettings {
  /** Template by BCP 47 language tag (canonical case, such as "hi" or "es-MX"). */
  templates: Record<string, string>;
  /** The language whose template is sent when Accept-Language matches none. */
  default_language?: string | undefined;
  /** Android SMS Retriever app hash: 11 characters. */
  app_hash?: string | undefined;
  /** WebOTP (origin-bound one-time code) domain. */
  webotp_domain?: string | undefined;
  /**
   * The phone change's security warning by language tag, with no code (lib/companies/security-warning-texts.ts):
   * the `phone` warning, kept where its first release stored it.
   */
  phone_change_texts?: Record<string, string> | undefined;
  /** Every other security warning (a held change's kind, new_device), then by language tag, with no code. */
  warning_texts?: Record<string, Record<string, string>> | undefined;
}

export interface CompanyRecord {
  company_id: string;
  name: string;
  status: CompanyStatus;
  /** A customer registering themselves must prove the phone (a type-2 verification_token). */
  require_verified_phone?: boolean | undefined;
  /** ISO 3166 alpha-2 codes SMS may go to; absent: every country. */
  sms_countries?: string[] | undefined;
  /** The company's own limits (lib/companies/company-limits.ts); absent: the configured default. */
  sms_per_hour?: number | undefined;
  sms_per_prefix_per_hour?: number | undefined;
  sends_per_address_per_hour?: number | undefined;
  verifies_per_address?: number | undefined;
  /** Absent: the built-in English text. It travels with the company record, cached by every function. */
  sms_text?: SmsTextSettings | undefined;
  /**
   * What SMS-strength sessions may approve in 24 hours, per ISO 4217 currency, as a decimal string
   * (contract 3.15, second reading); a currency absent: none. Absent: no SMS-strength payment at all.
   */
  sms_payment_limit?: Record<string, string> | undefined;
  /** Passkeys (contract 3.16): the relying party id and the origins allowed; absent: no passkey route works. */
  webauthn?: { rp_id: string; origins: string[] } | undefined;
  /** Every login must carry a DPoP proof, so every session's tokens are bound to a key (contract 3.17). */
  require_dpop?: boolean | undefined;
  created_at: number;
  updated_at?: number | undefined;
}

/** The company as stored; `consistent`: as last written (the back office shows its own change at once). */
export async function getCompany(table: Table, companyId: string, consistent = false): Promise<CompanyRecord | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.name, Key: companyKey(companyId), ...(consistent ? { ConsistentRead: true } : {}) }),
  );
  return Item as CompanyRecord | undefined;
}

/** Writes a new company; false when its id is already taken. */
export async function putNewCompany(table: Table, company: CompanyRecord): Promise<boolean> {
  const { Put } = putIfAbsent(table, companyKey(company.company_id), company);
  const outcome = await conditionalWrite(table.client.send(new PutCommand(Put!)));
  return outcome.written;
}

export interface CompanyUpdate {
  /** Attributes to remove. */
  remove?: (keyof CompanyRecord)[];
  /** Writes only while sms_text is still this (null: still absent), so no other change to it is lost. */
  smsTextWas?: SmsTextSettings | null;
  /** Writes only while the name is still this: the SMS text was sized with it. */
  nameWas?: string;
  /**
   * Items written in the same transaction (the back office's record of the change): then the company
   * is read back, strongly consistently, since a transaction returns no item.
   */
  alongside?: LabelledItem<string>[];
}

/**
 * Sets the given attributes of a company and removes the ones asked; undefined when there is no
 * such company, or when its sms_text or name is no longer the one expected.
 */
export async function updateCompany(
  table: Table,
  companyId: string,
  changes: Partial<CompanyRecord>,
  { remove = [], smsTextWas, nameWas, alongside }: CompanyUpdate = {},
): Promise<CompanyRecord | undefined> {
  const set = Object.entries(changes).filter(([, value]) => value !== undefined);
  const names: Record<string, string> = Object.fromEntries(set.map(([name], index) => [`#a${index}`, name]));
  const values: Record<string, unknown> = Object.fromEntries(set.map(([, value], index) => [`:v${index}`, value]));
  const conditions = ['attribute_exists(pk)'];
  if (smsTextWas !== undefined) {
    names['#smsText'] = 'sms_text';
    if (smsTextWas === null) conditions.push('attribute_not_exists(#smsText)');
    else {
      // DynamoDB compares maps whole.
      conditions.push('#smsText = :smsTextWas');
      values[':smsTextWas'] = smsTextWas;
    }
  }
  if (nameWas !== undefined) {
    names['#nameWas'] = 'name';
    conditions.push('#nameWas = :nameWas');
    values[':nameWas'] = nameWas;
  }
  const clauses = [
    set.length ? `SET ${set.map((_, index) => `#a${index} = :v${index}`).join(', ')}` : '',
    remove.length ? `REMOVE ${remove.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const update = {
    TableName: table.name,
    Key: companyKey(companyId),
    UpdateExpression: clauses,
    ConditionExpression: conditions.join(' AND '),
    ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
    ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
  } satisfies UpdateCommandInput;
  if (alongside) {
    try {
      await writeTransaction(table, [{ label: 'company', item: { Update: update } }, ...alongside]);
    } catch (error) {
      if (error instanceof ConditionsFailed && error.labels.includes('company')) return undefined;
      throw error;
    }
    return getCompany(table, companyId, true);
  }
  const outcome = await conditionalWrite(table.client.send(new UpdateCommand({ ...update, ReturnValues: 'ALL_NEW' })));
  return outcome.written ? (outcome.result.Attributes as CompanyRecord) : undefined;
}
