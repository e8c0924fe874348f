import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { ensureTable } from '../../lib/store/ensure-table.js';
import { localClient } from '../../scripts/local-dynamodb.js';

// Imported first by a hardening test file that scans: a table of the file's own, so a Scan
// reads only what this file wrote. The service reads TABLE_NAME once, on import, so this
// module must run before anything under lib/ is imported.
export const ownTable = `wallet-auth-hardening-${randomUUID().slice(0, 8)}`;

const client = localClient(inject('dynamodbEndpoint'));
await ensureTable(client, ownTable);
client.destroy();
process.env.TABLE_NAME = ownTable;
