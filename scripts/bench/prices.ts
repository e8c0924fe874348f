// AWS list prices for the cost estimate, us-east-1, in USD. Written down by hand, not fetched:
// check them against the pricing pages below before quoting any figure, since AWS changes them.

export const PRICES = {
  asOf: '2026-11-22',
  region: 'us-east-1',
  sources: [
    'https://aws.amazon.com/lambda/pricing/ (Arm, first 7.5 billion GB-s a month; requests)',
    'https://aws.amazon.com/dynamodb/pricing/on-demand/ (standard table class, after the November 2024 cut)',
    'https://aws.amazon.com/end-user-messaging/pricing/ (SMS to the United States: AWS base price plus carrier fee)',
    'https://aws.amazon.com/api-gateway/pricing/ (HTTP APIs, first 300 million requests a month)',
    'https://aws.amazon.com/eventbridge/pricing/ (custom events put on an event bus, per 64 KB chunk of an entry)',
    'https://aws.amazon.com/dynamodb/pricing/on-demand/ (DynamoDB Streams: GetRecords by a Lambda trigger is free)',
  ],
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerRequest: 0.2 / 1e6,
  dynamoPerWriteUnit: 0.625 / 1e6,
  dynamoPerReadUnit: 0.125 / 1e6,
  /** One outbound SMS part to a US number from a toll-free number: 0.00581 AWS + 0.00302 carrier fee (varies by carrier). */
  smsUs: 0.00883,
  httpApiPerRequest: 1.0 / 1e6,
  /** PutEvents: one custom event entry (each 64 KB of it counts as one). */
  eventBridgePerEntryChunk: 1.0 / 1e6,
  /** Lambda gives a function one full vCPU at 1,769 MB, in proportion below that. */
  mbPerVcpu: 1769,
} as const;

interface CallCost {
  lambda: number;
  dynamodb: number;
  sms: number;
  apiGateway: number;
  total: number;
}

/** The cost of one million calls, each with these averages. Lambda bills each call's duration rounded up to 1 ms. */
export function costPerMillion(input: {
  memoryMb: number;
  billedMs: number;
  readUnits: number;
  writeUnits: number;
  sms: number;
}): CallCost {
  const million = 1e6;
  const lambda = million * (PRICES.lambdaPerRequest + (input.memoryMb / 1024) * (input.billedMs / 1000) * PRICES.lambdaArmPerGbSecond);
  const dynamodb = million * (input.readUnits * PRICES.dynamoPerReadUnit + input.writeUnits * PRICES.dynamoPerWriteUnit);
  const sms = million * input.sms * PRICES.smsUs;
  const apiGateway = million * PRICES.httpApiPerRequest;
  return { lambda, dynamodb, sms, apiGateway, total: lambda + dynamodb + sms + apiGateway };
}
