import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/**
 * What a conditional write came to: written, with the call's result, or refused by its
 * condition, with the item the condition saw (when the write asked for it with
 * ReturnValuesOnConditionCheckFailure: ALL_OLD).
 */
type ConditionalWrite<Result> = { written: true; result: Result } | { written: false; seen: Record<string, unknown> | undefined };

/** Awaits a conditional write: a failed condition is an outcome; any other error is thrown. */
export async function conditionalWrite<Result>(write: Promise<Result>): Promise<ConditionalWrite<Result>> {
  try {
    return { written: true, result: await write };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    return { written: false, seen: error.Item ? unmarshall(error.Item) : undefined };
  }
}
