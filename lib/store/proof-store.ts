import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite } from './conditional-write.js';
import { phoneProofKey } from './keys.js';
import type { Table } from './table.js';
import { putIfAbsent, type TransactItem } from './transactions.js';

/** What a verified code proves: that its holder received a code on this phone, for this purpose. */
interface PhoneProofRecord {
  phone_e164: string;
  user_type: number;
  otp_type: number;
  /** For otp_type 3 and 4, and 2 verified with a token: the user whose token verified the code (reset_pin and phone/change require it). */
  user_id?: string | undefined;
  created_at: number;
  /** Epoch seconds; also the table's TTL attribute. */
  expires_at: number;
  /** When it was used up: kept until the TTL, not deleted, so a late copy of its put finds it there. */
  used_at?: number | undefined;
}

/**
 * Stores a new proof. Its key is the hash of 256 random bits, so an item already there is this
 * write itself, applied by an attempt whose answer was lost and retried by the SDK: done.
 */
export async function putPhoneProof(table: Table, companyId: string, proofHash: string, record: PhoneProofRecord): Promise<void> {
  const { Put } = putIfAbsent(table, phoneProofKey(companyId, proofHash), { ...record, proof_hash: proofHash });
  const outcome = await conditionalWrite(table.client.send(new PutCommand({ ...Put!, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })));
  if (!outcome.written && outcome.seen?.proof_hash !== proofHash) throw new Error('a phone proof key is taken by another proof');
}

/**
 * Uses up a proof inside a transaction: only if the proof exists, is unused and unexpired, and was
 * issued for this phone, user type and purpose. A transaction that fails for any other reason
 * leaves it unused. Marked used rather than deleted: a copy of its put that lands late (its answer
 * lost, the SDK's retry stored it) then finds it and cannot store it unused again.
 */
export function phoneProofConsume(
  table: Table,
  companyId: string,
  proofHash: string,
  expected: { phoneE164: string; userType: number; otpType: number; now: number; userId?: string },
): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: phoneProofKey(companyId, proofHash),
      UpdateExpression: 'SET used_at = :now',
      ConditionExpression:
        'attribute_exists(pk) AND attribute_not_exists(used_at) AND phone_e164 = :phone AND user_type = :userType AND otp_type = :otpType AND expires_at > :now' +
        // Verified while presenting this user's token (verify-otp.ts): a proof anyone else got does not count.
        (expected.userId ? ' AND user_id = :user' : ''),
      ExpressionAttributeValues: {
        ':phone': expected.phoneE164,
        ':userType': expected.userType,
        ':otpType': expected.otpType,
        ':now': expected.now,
        ...(expected.userId ? { ':user': expected.userId } : {}),
      },
    },
  };
}
