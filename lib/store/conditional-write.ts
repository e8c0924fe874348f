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

/**
 * The condition that a counter (a session_version, a PIN's version) is still `seen`, as read: a
 * counter never written reads as 0, so seen 0 also holds while the attribute is absent.
 * `attribute` is its name or #placeholder, `value` the :placeholder of `seen`.
 */
export function counterStillIs(attribute: string, value: string, seen: number): string {
  return seen === 0 ? `(${attribute} = ${value} OR attribute_not_exists(${attribute}))` : `${attribute} = ${value}`;
}
