import { UserStatus } from '../users/user-status.js';
import { type ItemKey, userKey } from './keys.js';
import type { Table } from './table.js';
import type { TransactItem } from './transactions.js';

// The items a phone change writes besides the claims registration already has (user-store.ts):
// the user's new number, and the old number's claim given up (lib/account/phone-change.ts).

export interface NewPhone {
  dialCode: string;
  phoneNumber: string;
  phoneE164: string;
}

/**
 * Moves a user to a proven number, only while they are active and still on the number read
 * (`seenE164`): two changes of one user at once cannot both release the same old claim.
 */
export function userPhoneChange(
  table: Table,
  companyId: string,
  userId: string,
  phone: NewPhone,
  seenE164: string,
  nowSeconds: number,
  requestRef?: string | undefined,
): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: userKey(companyId, userId),
      // The request that moved it and the number it left: a retry of that request whose answer was
      // lost is recognised, answered as the first, and the old number still told.
      UpdateExpression:
        'SET dial_code = :dial, phone_number = :number, phone_e164 = :phone, phone_verified = :one, updated_at = :now, ' +
        'phone_changed_from = :seen, phone_changed_by_request = :request',
      ConditionExpression: 'attribute_exists(pk) AND status_id = :active AND phone_e164 = :seen',
      ExpressionAttributeValues: {
        ':request': requestRef ?? 'none',
        ':dial': phone.dialCode,
        ':number': phone.phoneNumber,
        ':phone': phone.phoneE164,
        ':one': 1,
        ':now': nowSeconds,
        ':active': UserStatus.ACTIVE,
        ':seen': seenE164,
      },
    },
  };
}

/** Deletes a code waiting on the old number (a login code sent before the change is never verified after it). */
export function codeDelete(table: Table, key: ItemKey): TransactItem {
  return { Delete: { TableName: table.name, Key: key } };
}
