import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite } from './conditional-write.js';
import { deviceIndexKey, deviceNonceKey, PENDING_CHANGE_PREFIX, USER_DEVICE_PREFIX, userDeviceKey, userKey } from './keys.js';
import { queryPartitionPrefix } from './partition-query.js';
import type { Table } from './table.js';
import type { TransactItem } from './transactions.js';

// Bound devices (API contract 3.6): an index item per device, found by device_key alone, which
// PIN login reads, and an item in the user's partition for the user's list. Their nonces live
// beside the index item.

/**
 * Whether a device is on probation (API contract 3.15), kept on both its items: bound by an OTP login
 * (which a SIM swapper passes), it is on probation from `probation_since`; a strong login of the owner
 * during its probation holds it there (`probation_held`) until approved or removed. Neither: settled
 * (lib/devices/device-settlement.ts).
 */
export interface Probation {
  probation_since?: number | undefined;
  probation_held?: number | undefined;
  /**
   * When `npm run changes:migrate` put a device of round 5 on probation: kept when the device settles,
   * so that a run again never puts an approved device back on probation.
   */
  probation_migrated_at?: number | undefined;
}

/** The index item: whose device and its public key. */
export interface DeviceRecord extends Probation {
  user_id: string;
  user_type: number;
  /** Base64 SPKI DER, canonical (lib/devices/device-signatures.ts spkiBase64Of). */
  public_key: string;
  created_at: number;
}

/** The labels a client sends with a binding: never proof, only what the list shows. */
export interface DeviceLabels {
  device_type?: number | undefined;
  device_id?: string | undefined;
  device_unique_id?: string | undefined;
}

/** A device in its user's list. */
export interface UserDeviceRecord extends DeviceLabels, Probation {
  device_key: string;
  created_at: number;
  last_used_at: number;
}

export async function getDevice(table: Table, companyId: string, deviceKey: string): Promise<DeviceRecord | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.name, Key: deviceIndexKey(companyId, deviceKey), ConsistentRead: true }),
  );
  return Item as DeviceRecord | undefined;
}

/** A user's devices as listed, read strongly consistently (at most the configured maximum, so one page). */
export async function queryUserDevices(table: Table, companyId: string, userId: string): Promise<UserDeviceRecord[]> {
  return (await queryPartitionPrefix(table, userKey(companyId, userId).pk, USER_DEVICE_PREFIX)) as unknown as UserDeviceRecord[];
}

/**
 * The two items of a binding: new, or the same key bound again by the same user (its labels replaced,
 * its creation and probation kept). With `probation`, a new binding starts on probation (contract 3.15).
 */
export function deviceBindWrites(
  table: Table,
  companyId: string,
  userId: string,
  binding: { deviceKey: string; userType: number; publicKey: string; labels: DeviceLabels; probation?: boolean },
  nowSeconds: number,
): { index: TransactItem; listing: TransactItem } {
  const labels = Object.entries(binding.labels).filter(([, value]) => value !== undefined);
  const absent = (['device_type', 'device_id', 'device_unique_id'] as const).filter((name) => binding.labels[name] === undefined);
  const probation = binding.probation ? ', probation_since = if_not_exists(created_at, :now)' : '';
  return {
    index: {
      Update: {
        TableName: table.name,
        Key: deviceIndexKey(companyId, binding.deviceKey),
        UpdateExpression: `SET user_id = :user, user_type = :userType, public_key = :key${probation}, created_at = if_not_exists(created_at, :now)`,
        // The device_key is derived from the user: another user's item under it would be a bug.
        ConditionExpression: 'attribute_not_exists(pk) OR user_id = :user',
        ExpressionAttributeValues: { ':user': userId, ':userType': binding.userType, ':key': binding.publicKey, ':now': nowSeconds },
      },
    },
    listing: {
      Update: {
        TableName: table.name,
        Key: userDeviceKey(companyId, userId, binding.deviceKey),
        UpdateExpression:
          `SET device_key = :device${probation}, created_at = if_not_exists(created_at, :now), last_used_at = :now` +
          labels.map(([name]) => `, ${name} = :${name}`).join('') +
          (absent.length ? ` REMOVE ${absent.join(', ')}` : ''),
        ExpressionAttributeValues: {
          ':device': binding.deviceKey,
          ':now': nowSeconds,
          ...Object.fromEntries(labels.map(([name, value]) => [`:${name}`, value])),
        },
      },
    },
  };
}

/**
 * The device's side of a session granted on it: the device must still be the user's (a removal
 * that committed first refuses the grant), and its last use is now. The user's listing of the
 * device says both: a binding writes it with the device's index and a removal deletes both in one
 * transaction, and its key holds the user, so no check of the index is needed (2 write units fewer).
 */
export function deviceUseWrite(table: Table, companyId: string, userId: string, deviceKey: string, nowSeconds: number): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: userDeviceKey(companyId, userId, deviceKey),
      UpdateExpression: 'SET last_used_at = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':now': nowSeconds },
    },
  };
}

/**
 * The two deletions that end a binding, only while it is the user's: once they commit, no session
 * can be granted on the device (deviceUseWrite).
 */
export function deviceRemoveWrites(
  table: Table,
  companyId: string,
  userId: string,
  deviceKey: string,
): { index: TransactItem; listing: TransactItem } {
  return {
    index: {
      Delete: {
        TableName: table.name,
        Key: deviceIndexKey(companyId, deviceKey),
        ConditionExpression: 'user_id = :user',
        ExpressionAttributeValues: { ':user': userId },
      },
    },
    listing: { Delete: { TableName: table.name, Key: userDeviceKey(companyId, userId, deviceKey) } },
  };
}

/**
 * Takes a nonce for a device, once, for one attempt: false when another attempt took it (a replay,
 * or a twin arriving at once). The same attempt (its Idempotency-Key sent again after a lost
 * answer) finds the nonce its first run took and may go on.
 */
export async function takeNonce(
  table: Table,
  companyId: string,
  deviceKey: string,
  nonce: string,
  expiresAt: number,
  attemptId: string,
): Promise<boolean> {
  const outcome = await conditionalWrite(
    table.client.send(
      new PutCommand({
        TableName: table.name,
        Item: { ...deviceNonceKey(companyId, deviceKey, nonce), expires_at: expiresAt, taken_by: attemptId },
        ConditionExpression: 'attribute_not_exists(pk) OR taken_by = :attempt',
        ExpressionAttributeValues: { ':attempt': attemptId },
      }),
    ),
  );
  return outcome.written;
}

/** A change to a user's device count (a device removed: -1), for the transaction of the change. */
export function deviceCountChange(table: Table, companyId: string, userId: string, add: number): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: userKey(companyId, userId),
      UpdateExpression: 'ADD device_count :add',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':add': add },
    },
  };
}

/**
 * A user's devices and pending changes in one strongly consistent Query: their sort-key prefixes sort
 * next to each other with nothing between (keys.ts PENDING_CHANGE_PREFIX). What a PIN login needs to
 * know of the user beside the record: which devices are on probation, and what waits.
 */
export async function queryDevicesAndChanges(
  table: Table,
  companyId: string,
  userId: string,
): Promise<{ devices: UserDeviceRecord[]; changes: Record<string, unknown>[] }> {
  const devices: UserDeviceRecord[] = [];
  const changes: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.client.send(
      new QueryCommand({
        TableName: table.name,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': userKey(companyId, userId).pk,
          ':from': PENDING_CHANGE_PREFIX,
          ':to': `${USER_DEVICE_PREFIX}\uffff`,
        },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      const sk = String(item.sk);
      if (sk.startsWith(USER_DEVICE_PREFIX)) devices.push(item as unknown as UserDeviceRecord);
      else if (sk.startsWith(PENDING_CHANGE_PREFIX)) changes.push(item);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return { devices, changes };
}

/** Both items of a device, by the same update: the index PIN login reads and the user's listing. */
function onBothItems(
  table: Table,
  companyId: string,
  userId: string,
  deviceKey: string,
  update: Omit<Update, 'TableName' | 'Key'>,
): TransactItem[] {
  return [deviceIndexKey(companyId, deviceKey), userDeviceKey(companyId, userId, deviceKey)].map((Key) => ({
    Update: { TableName: table.name, Key, ...update },
  }));
}

type Update = NonNullable<TransactItem['Update']>;

/**
 * Holds a device on probation (contract 3.15, second reading): the owner logged in strongly while it
 * was on probation, so time alone no longer settles it. Only while it is still the user's and not held.
 */
export function deviceHoldWrites(table: Table, companyId: string, userId: string, deviceKey: string, nowSeconds: number): TransactItem[] {
  return onBothItems(table, companyId, userId, deviceKey, {
    UpdateExpression: 'SET probation_held = :now',
    ConditionExpression: 'attribute_exists(pk) AND attribute_exists(probation_since)',
    ExpressionAttributeValues: { ':now': nowSeconds },
  });
}

/** Settles a device on probation (devices/approve, an admin's approval of an employee's device): only while it is still the user's. */
export function deviceSettleWrites(table: Table, companyId: string, userId: string, deviceKey: string): TransactItem[] {
  return onBothItems(table, companyId, userId, deviceKey, {
    UpdateExpression: 'REMOVE probation_since, probation_held',
    ConditionExpression: 'attribute_exists(pk)',
  });
}

/**
 * Puts a device bound before round 6 on probation (`npm run changes:migrate`, contract 3.15: devices
 * bound by an OTP login less than CREDENTIAL_PROBATION_HOURS before the deploy), from its binding as a
 * new OTP binding would be: only while it is still the same binding of the user (its created_at) and
 * neither on probation nor ever put there by the migration.
 */
export function deviceProbationFromMigration(
  table: Table,
  companyId: string,
  userId: string,
  device: { deviceKey: string; createdAt: number },
  nowSeconds: number,
): TransactItem[] {
  const [index, listing] = onBothItems(table, companyId, userId, device.deviceKey, {
    UpdateExpression: 'SET probation_since = :created, probation_migrated_at = :now',
    ConditionExpression:
      'attribute_exists(pk) AND created_at = :created AND attribute_not_exists(probation_since) AND attribute_not_exists(probation_migrated_at)',
    ExpressionAttributeValues: { ':created': device.createdAt, ':now': nowSeconds },
  });
  // The index item also names its user: the device_key is derived from the user, but a stray item is no binding of theirs.
  const indexUpdate = index!.Update!;
  return [
    {
      Update: {
        ...indexUpdate,
        ConditionExpression: `${indexUpdate.ConditionExpression} AND user_id = :user`,
        ExpressionAttributeValues: { ...indexUpdate.ExpressionAttributeValues, ':user': userId },
      },
    },
    listing!,
  ];
}
