import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Table } from './table.js';

/** What narrows a partition read: an attribute filter applied after the read, the attributes returned. */
interface PartitionRead {
  filter?: { expression: string; values: Record<string, unknown> };
  projection?: string;
}

/**
 * Every item of one partition whose sort key starts with `prefix` (the empty prefix: every item),
 * read strongly consistently, page after page: a user's devices, their sessions (the lists a change
 * must see whole), or a user's whole partition (their export).
 */
export async function queryPartitionPrefix(
  table: Table,
  pk: string,
  prefix: string,
  { filter, projection }: PartitionRead = {},
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.client.send(
      new QueryCommand({
        TableName: table.name,
        KeyConditionExpression: prefix ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk, ...(prefix ? { ':prefix': prefix } : {}), ...filter?.values },
        ...(filter ? { FilterExpression: filter.expression } : {}),
        ...(projection ? { ProjectionExpression: projection } : {}),
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
