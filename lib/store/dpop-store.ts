import { createHash } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite } from './conditional-write.js';
import { dpopProofKey } from './keys.js';
import type { Table } from './table.js';

// The jti of DPoP proofs spent where once means once (contract 3.17): the routes that answer
// tokens, and every route where the stage issues nonces. One conditional put each.

/**
 * Spends a proof's jti: false when it was spent already and is still within its window (an expired
 * item is absent). `taker` names this call, so a put the SDK sent again after its answer was lost
 * finds its own first write and passes.
 */
export async function spendProofJti(
  table: Table,
  companyId: string,
  proof: { jkt: string; jti: string },
  now: number,
  expiresAt: number,
  taker: string,
): Promise<boolean> {
  const jtiHash = createHash('sha256').update(proof.jti).digest('base64url');
  const outcome = await conditionalWrite(
    table.client.send(
      new PutCommand({
        TableName: table.name,
        Item: { ...dpopProofKey(companyId, proof.jkt, jtiHash), expires_at: expiresAt, taken_by: taker },
        ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :now OR taken_by = :taker',
        ExpressionAttributeValues: { ':now': now, ':taker': taker },
      }),
    ),
  );
  return outcome.written;
}
