import { counterStillIs } from './conditional-write.js';
import { type ItemKey, userKey } from './keys.js';
import type { Table } from './table.js';
import type { TransactItem } from './transactions.js';
import { UserStatus } from './user-status.js';

// The items a phone change writes besides the claims registration already has (user-store.ts):
// the user's new number, and the old number's claim given up (lib/account/phone-change.ts).

export interface NewPhone {
  dialCode: string;
  phoneNumber: string;
  phoneE164: string;
}

/**
 * Moves a user to a proven number, only while they are active, still on the number read
 * (`seenE164`: two changes of one user at once cannot both release the same old claim) and granted
 * no session since read (`sessionVersion`: every session the change must end is one it read). It
 * counts as a change of the user's sessions and claims: a deletion or a disable that read the user
 * before it is refused and reads again.
 */
export function userPhoneChange(
  table: Table,
  companyId: string,
  userId: string,
  change: {
    phone: NewPhone;
    seenE164: string;
    sessionVersion: number;
    nowSeconds: number;
    requestRef: string | undefined;
    /** A recovery removed every bound device in the same transaction: none is left to count. */
    devicesRemoved?: true;
  },
): TransactItem {
  const { phone } = change;
  return {
    Update: {
      TableName: table.name,
      Key: userKey(companyId, userId),
      // The request that moved it, when, and the number it left: a retry of that request whose
      // answer was lost is recognised while its key lives, answered as the first, and the old number still told.
      UpdateExpression:
        'SET dial_code = :dial, phone_number = :number, phone_e164 = :phone, phone_verified = :one, updated_at = :now, ' +
        `phone_changed_from = :seen, phone_changed_by_request = :request, phone_changed_at = :now${change.devicesRemoved ? ', device_count = :zero' : ''} ` +
        'ADD session_version :one',
      ConditionExpression: `attribute_exists(pk) AND status_id = :active AND phone_e164 = :seen AND ${counterStillIs('session_version', ':version', change.sessionVersion)}`,
      ExpressionAttributeValues: {
        ':request': change.requestRef ?? 'none',
        ':dial': phone.dialCode,
        ':number': phone.phoneNumber,
        ':phone': phone.phoneE164,
        ':one': 1,
        ':now': change.nowSeconds,
        ':active': UserStatus.ACTIVE,
        ':seen': change.seenE164,
        ':version': change.sessionVersion,
        ...(change.devicesRemoved ? { ':zero': 0 } : {}),
      },
    },
  };
}

/** Deletes a code waiting on the old number (a login code sent before the change is never verified after it). */
export function codeDelete(table: Table, key: ItemKey): TransactItem {
  return { Delete: { TableName: table.name, Key: key } };
}
