import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { phoneProofKey } from './keys.js';
import type { Table } from './table.js';
import { putIfAbsent, type TransactItem } from './transactions.js';

/** What a verified code proves: that its holder received a code on this phone, for this purpose. */
export interface PhoneProofRecord {
  phone_e164: string;
  user_type: number;
  otp_type: number;
  /** For otp_type 3 and 4: the user whose token verified the code. */
  user_id?: string | undefined;
  created_at: number;
  /** Epoch seconds; also the table's TTL attribute. */
  expires_at: number;
}

export async function putPhoneProof(table: Table, companyId: string, proofHash: string, record: PhoneProofRecord): Promise<void> {
  const { Put } = putIfAbsent(table, phoneProofKey(companyId, proofHash), record);
  await table.client.send(new PutCommand(Put!));
}

/**
 * Uses up a proof inside a transaction: the delete holds only if the proof exists, is unexpired
 * and was issued for this phone, user type and purpose. A transaction that fails for any other
 * reason leaves it unused.
 */
export function phoneProofConsume(
  table: Table,
  companyId: string,
  proofHash: string,
  expected: { phoneE164: string; userType: number; otpType: number; now: number },
): TransactItem {
  return {
    Delete: {
      TableName: table.name,
      Key: phoneProofKey(companyId, proofHash),
      ConditionExpression:
        'attribute_exists(pk) AND phone_e164 = :phone AND user_type = :userType AND otp_type = :otpType AND expires_at > :now',
      ExpressionAttributeValues: {
        ':phone': expected.phoneE164,
        ':userType': expected.userType,
        ':otpType': expected.otpType,
        ':now': expected.now,
      },
    },
  };
}
