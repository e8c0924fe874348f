import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

// The table's shape for local and test DynamoDB. serverless.yml declares the same table for
// AWS; a test compares the two so they cannot drift apart.

/** Epoch seconds after which DynamoDB may delete an item; the code treats it as absent then. */
export const TTL_ATTRIBUTE = 'expires_at';

export function tableDefinition(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
    // Every committed change, with the item before and after: the events' publisher reads it
    // (functions/events-publish.ts); DynamoDB Local serves streams too.
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
  };
}
