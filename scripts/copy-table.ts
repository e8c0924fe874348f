// npm run table:copy -- --from TABLE --to TABLE [--company ID] [--create-target]
// Copies items from one table to another: after a point-in-time restore (docs/operations.md),
// from the restored table back into the stage's own. Each copied item replaces the item with
// its key; items only the target holds are left as they are. With --company, only that
// company's items (every key of theirs starts with C#<company id>); without it, everything,
// the per-address counters included. Prints {"copied": n} as its last line. Uses the same
// configuration as the other operator commands (AWS_REGION, DYNAMODB_ENDPOINT). With
// --create-target, a missing target table is created first with the service's key schema and
// TTL: a local stand-in for a restored table (DynamoDB Local has no point-in-time restore).

import { parseArgs } from 'node:util';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { readConfig } from '../lib/config.js';
import { HEX_ID_PATTERN } from '../lib/ids.js';
import { writeInBatches } from '../lib/store/batch-write.js';
import { ensureTable } from '../lib/store/ensure-table.js';
import { companyPrefix } from '../lib/store/keys.js';
import { createTable } from '../lib/store/table.js';
import { type OperatorIo, runIfMain } from './operator-app.js';

const USAGE = 'usage: npm run table:copy -- --from <table> --to <table> [--company <company id>] [--create-target]';

export async function main(argv: string[], io: OperatorIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { from: { type: 'string' }, to: { type: 'string' }, company: { type: 'string' }, 'create-target': { type: 'boolean' } },
  });
  const companyId = values.company?.trim().toLowerCase();
  if (!values.from || !values.to || values.from === values.to || (companyId !== undefined && !HEX_ID_PATTERN.test(companyId))) {
    io.err(USAGE);
    return 2;
  }

  const config = readConfig(io.env);
  const source = createTable({ ...config, tableName: values.from });
  const target = createTable({ ...config, tableName: values.to });
  let copied = 0;
  try {
    if (values['create-target'] && (await ensureTable(target.client, target.name)) === 'created') {
      io.err(`table ${target.name} created`);
    }
    let start: Record<string, unknown> | undefined;
    do {
      const page = await source.client.send(
        new ScanCommand({
          TableName: source.name,
          ConsistentRead: true,
          ExclusiveStartKey: start,
          ...(companyId
            ? { FilterExpression: 'begins_with(pk, :company)', ExpressionAttributeValues: { ':company': companyPrefix(companyId) } }
            : {}),
        }),
      );
      const items = page.Items ?? [];
      await writeInBatches(
        target,
        items.map((Item) => ({ PutRequest: { Item } })),
      );
      copied += items.length;
      start = page.LastEvaluatedKey;
      if (items.length) io.err(`${copied} items copied`);
    } while (start);
    io.out(JSON.stringify({ copied }));
    return 0;
  } catch (error) {
    io.err(`copy stopped after ${copied} items: ${(error as Error).message}`);
    return 1;
  }
}

await runIfMain(import.meta.url, main);
