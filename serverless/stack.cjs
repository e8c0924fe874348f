// CloudFormation that serverless.yml pulls in (resources), built from serverless.yml's own
// lists so it cannot drift from them: one IAM role per function holding only what that function
// does (custom.permissions, from serverless/permissions.cjs), and the alarms an on-call engineer
// needs, all notifying one topic.
// docs/operations.md says what to do when each fires.

const { join } = require('node:path');
const { require: requireTypeScript } = require('tsx/cjs/api');
const KEY_KINDS = require('./key-kinds.cjs');
const { spendProofs } = require('./permission-parts.cjs');
/** The service's own metrics (lib/observability/metrics.ts): one namespace, the service as dimension. */
const METRICS = require('../lib/observability/metric-names.json');

const TABLE_ACTIONS = new Set(['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem', 'Query', 'BatchWriteItem']);
/** The operations whose DynamoDB system errors the table alarm sums. */
const TABLE_OPERATIONS = ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'TransactWriteItems', 'BatchWriteItem'];

/** The SMS queue's actions: queuing a text, and what a Lambda event source needs of its function's role. */
const QUEUE_ACTIONS = {
  send: ['sqs:SendMessage'],
  consume: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ChangeMessageVisibility'],
};

/**
 * The events' grants (serverless/permissions.cjs): putting events on the stack's bus, reading the
 * table's stream (what a Lambda event source needs of its function's role), and sending to the events'
 * dead-letter queue (the publisher's own dead letters, and the stream's on-failure destination, which
 * Lambda sends as the function's role). Each on that one resource, never another.
 */
const EVENT_GRANTS = {
  events: { publish: { Action: ['events:PutEvents'], Resource: { 'Fn::GetAtt': ['EventBus', 'Arn'] } } },
  stream: {
    read: {
      Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's own ${} (Fn::Sub)
      Resource: { 'Fn::Sub': '${WalletTable.StreamArn}' },
    },
  },
  deadLetters: { events: { Action: ['sqs:SendMessage'], Resource: { 'Fn::GetAtt': ['EventsDeadLetterQueue', 'Arn'] } } },
};

const capitalized = (name) => name[0].toUpperCase() + name.slice(1);
const sub = (text) => ({ 'Fn::Sub': text });
const tableArn = { 'Fn::GetAtt': ['WalletTable', 'Arn'] };

/**
 * One grant of custom.permissions as a statement: its actions on the table, for items whose
 * partition key is of the grant's kinds only (ForAllValues: every item of a batch or a query);
 * with attributes, an update that names only those, and returns no attribute of the item but as
 * its `returns` says.
 */
function tableStatement(name, grant) {
  for (const action of grant.actions)
    if (!TABLE_ACTIONS.has(action)) throw new Error(`custom.permissions.${name}: unknown table action ${action}`);
  for (const kind of grant.keys)
    if (!Object.hasOwn(KEY_KINDS, kind)) throw new Error(`custom.permissions.${name}: unknown kind of item ${kind}`);
  const partitions = [...new Set(grant.keys.map((kind) => KEY_KINDS[kind]))];
  const condition = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': partitions } };
  if (grant.attributes) {
    condition['ForAllValues:StringEquals'] = { 'dynamodb:Attributes': ['pk', 'sk', ...grant.attributes] };
    // IAM checks only the attributes a request names: ALL_NEW or ALL_OLD would return the others.
    condition.StringEqualsIfExists = { 'dynamodb:ReturnValues': grant.returns ? ['NONE', ...grant.returns] : 'NONE' };
  } else if (grant.returns) {
    throw new Error(`custom.permissions.${name}: returns is for a grant with attributes`);
  }
  return { Effect: 'Allow', Action: grant.actions.map((action) => `dynamodb:${action}`), Resource: tableArn, Condition: condition };
}

/** The role of one function: its log stream, and nothing it does not do. */
const parameterArn = (name) => sub(`arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter${name}`);

/** The signing key sets a function reads: the public one to verify, the private one too to sign. */
function signingKeyParameters(name, kind, parameters) {
  if (kind === undefined) return [];
  if (kind === 'verify') return [parameters.public];
  if (kind === 'sign') return [parameters.private, parameters.public];
  throw new Error(`custom.permissions.${name}: signingKeys must be sign or verify`);
}

function role(service, stage, name, permissions, secretParameter, signingParameters) {
  const statements = [
    {
      Effect: 'Allow',
      Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      Resource: sub(`arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:/aws/lambda/${service}-${stage}-${name}:*`),
    },
  ];
  for (const grant of permissions.table ?? []) statements.push(tableStatement(name, grant));
  const parameters = [
    ...(permissions.secret ? [secretParameter] : []),
    ...signingKeyParameters(name, permissions.signingKeys, signingParameters),
  ];
  if (parameters.length) statements.push({ Effect: 'Allow', Action: ['ssm:GetParameter'], Resource: parameters.map(parameterArn) });
  // SMS to phone numbers only: NotResource on every SNS ARN rules out topics and endpoints.
  if (permissions.sms) statements.push({ Effect: 'Allow', Action: ['sns:Publish'], NotResource: 'arn:aws:sns:*:*:*' });
  if (permissions.queue) {
    if (!QUEUE_ACTIONS[permissions.queue]) throw new Error(`custom.permissions.${name}: queue must be send or consume`);
    statements.push({ Effect: 'Allow', Action: QUEUE_ACTIONS[permissions.queue], Resource: { 'Fn::GetAtt': ['SmsQueue', 'Arn'] } });
  }
  for (const [kind, values] of Object.entries(EVENT_GRANTS)) {
    if (permissions[kind] === undefined) continue;
    if (!Object.hasOwn(values, permissions[kind]))
      throw new Error(`custom.permissions.${name}: ${kind} must be ${Object.keys(values).join(' or ')}, not ${permissions[kind]}`);
    statements.push({ Effect: 'Allow', ...values[permissions[kind]] });
  }
  return {
    Type: 'AWS::IAM::Role',
    Properties: {
      AssumeRolePolicyDocument: {
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Principal: { Service: ['lambda.amazonaws.com'] }, Action: ['sts:AssumeRole'] }],
      },
      Policies: [{ PolicyName: `${service}-${stage}-${name}`, PolicyDocument: { Version: '2012-10-17', Statement: statements } }],
    },
  };
}

function alarm(description, properties) {
  return {
    Type: 'AWS::CloudWatch::Alarm',
    Properties: {
      AlarmDescription: description,
      AlarmActions: [{ Ref: 'AlarmTopic' }],
      OKActions: [{ Ref: 'AlarmTopic' }],
      TreatMissingData: 'notBreaching',
      ...properties,
    },
  };
}

const lambdaAlarm = (fn, metric, statistic, threshold, description) =>
  alarm(description, {
    Namespace: 'AWS/Lambda',
    MetricName: metric,
    Dimensions: [{ Name: 'FunctionName', Value: { Ref: `${capitalized(fn)}LambdaFunction` } }],
    Statistic: statistic,
    Period: 300,
    EvaluationPeriods: 1,
    Threshold: threshold,
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
  });

// An IAM role's ARN, the one kind of principal redeemAuthorization may be granted to: never a
// wildcard, a whole account or a service.
const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/;

/**
 * lambda:InvokeFunction on redeemAuthorization for the payment service's role (PAYMENT_SERVICE_ROLE_ARN),
 * and no permission at all when it is unset. Anything but one role's ARN refuses to package.
 */
function paymentServiceInvoke(roleArn) {
  if (!roleArn) return {};
  if (!ROLE_ARN.test(roleArn)) {
    const error = new Error(`PAYMENT_SERVICE_ROLE_ARN must be one IAM role's ARN (arn:aws:iam::<account>:role/<name>), not ${roleArn}`);
    // Serverless prints the stack of an error thrown here: the message says all there is.
    error.stack = error.message;
    throw error;
  }
  return {
    RedeemAuthorizationPaymentServicePermission: {
      Type: 'AWS::Lambda::Permission',
      Properties: {
        Action: 'lambda:InvokeFunction',
        FunctionName: { 'Fn::GetAtt': ['RedeemAuthorizationLambdaFunction', 'Arn'] },
        Principal: roleArn,
      },
    },
  };
}

/** An alarm on the largest value of one of a queue's metrics in a minute. */
const queueAlarm = (queue, description, metric, threshold) =>
  alarm(description, {
    Namespace: 'AWS/SQS',
    MetricName: metric,
    Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queue, 'QueueName'] } }],
    Statistic: 'Maximum',
    Period: 60,
    EvaluationPeriods: 1,
    Threshold: threshold,
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
  });

/**
 * The SMS queue (docs/scaling.md): encrypted at rest, a text back after a failed try once its
 * consumer's time is surely over (six times it, as AWS advises for Lambda event sources), kept no
 * longer than its code could still work, and after maxReceives failed tries set aside in the
 * dead-letter queue, whose first message raises an alarm; so does a text waiting over a minute.
 */
function smsQueue({ consumerTimeout, maxReceives }) {
  return {
    SmsDeadLetterQueue: {
      Type: 'AWS::SQS::Queue',
      Properties: { SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 },
    },
    SmsQueue: {
      Type: 'AWS::SQS::Queue',
      Properties: {
        SqsManagedSseEnabled: true,
        VisibilityTimeout: 6 * Number(consumerTimeout),
        MessageRetentionPeriod: 900,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': ['SmsDeadLetterQueue', 'Arn'] }, maxReceiveCount: Number(maxReceives) },
      },
    },
    SmsDeadLettersAlarm: queueAlarm(
      'SmsDeadLetterQueue',
      `Texts failed ${maxReceives} times and wait in the SMS dead-letter queue (their codes were never sent)`,
      'ApproximateNumberOfMessagesVisible',
      1,
    ),
    SmsQueueAgeAlarm: queueAlarm(
      'SmsQueue',
      'A text has waited over 60 s in the SMS queue: sending is behind (pools too slow, or SNS refusing)',
      'ApproximateAgeOfOldestMessage',
      60,
    ),
  };
}

/**
 * The events' bus (API contract 3.13, docs/events.md), named after the stack; the dead-letter queue of
 * what the publisher could not put on it (and of the stream's batches it gave up on), encrypted and
 * kept 14 days, whose first message raises an alarm; and an alarm when the publisher falls a minute
 * behind the table's stream.
 */
function events(service, stage) {
  return {
    EventBus: { Type: 'AWS::Events::EventBus', Properties: { Name: `${service}-${stage}` } },
    EventsDeadLetterQueue: {
      Type: 'AWS::SQS::Queue',
      Properties: { SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 },
    },
    EventsDeadLettersAlarm: queueAlarm(
      'EventsDeadLetterQueue',
      'Events the bus refused, or stream records the publisher gave up on, wait in the events dead-letter queue (subscribers never got them)',
      'ApproximateNumberOfMessagesVisible',
      1,
    ),
    EventsPublishIteratorAgeAlarm: alarm(
      'eventsPublish is over a minute behind the table stream: events reach the bus late (AWS/Lambda IteratorAge)',
      {
        Namespace: 'AWS/Lambda',
        MetricName: 'IteratorAge',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: 'EventsPublishLambdaFunction' } }],
        Statistic: 'Maximum',
        Period: 60,
        EvaluationPeriods: 1,
        Threshold: 60_000,
        ComparisonOperator: 'GreaterThanThreshold',
      },
    ),
  };
}

/**
 * A route's grants on this stage. With DPOP_NONCE=1 every route spends its DPoP proofs' jti by a
 * conditional put (lib/http/dpop.ts, dpopOnce), not only those that answer tokens, whose roles hold
 * that put always (serverless/permissions.cjs, spendProofs): so the put is added here, to every
 * function of the route table, on the stages that set it and on no other. (The permissions test runs
 * with DPOP_NONCE=0; tests/deploy/stage-grants.test.ts checks this addition.)
 */
function grantsOnStage(name, granted, { dpopNonce, routes }) {
  if (!dpopNonce || !routes.has(name)) return granted;
  const spends = (granted.table ?? []).some((grant) => grant.actions.includes('PutItem') && grant.keys.includes('dpopProof'));
  return spends ? granted : { ...granted, table: [...(granted.table ?? []), spendProofs] };
}

/** The functions of the route table (lib/api/endpoints.ts): each runs the DPoP middleware. */
const routeFunctions = () => new Set(Object.keys(requireTypeScript(join(__dirname, '../lib/api/endpoints.ts'), __filename).endpoints));

module.exports = async ({ resolveConfigurationProperty }) => {
  const service = await resolveConfigurationProperty(['service']);
  const stage = await resolveConfigurationProperty(['custom', 'stage']);
  const permissions = await resolveConfigurationProperty(['custom', 'permissions']);
  const timeoutSeconds = await resolveConfigurationProperty(['provider', 'timeout']);
  const secretParameter = await resolveConfigurationProperty(['custom', 'serverSecretParameter']);
  const signingParameters = {
    private: await resolveConfigurationProperty(['custom', 'signingKeysParameter']),
    public: await resolveConfigurationProperty(['custom', 'signingPublicKeysParameter']),
  };
  const alarms = await resolveConfigurationProperty(['custom', 'alarms']);
  const paymentServiceRoleArn = await resolveConfigurationProperty(['custom', 'paymentServiceRoleArn']);
  const smsQueueSettings = await resolveConfigurationProperty(['custom', 'smsQueue']);
  const eraserSettings = await resolveConfigurationProperty(['custom', 'eraser']);
  const eventsSettings = await resolveConfigurationProperty(['custom', 'events']);

  // The stage's DPOP_NONCE, as its functions read it (provider.environment, serverless/environment.cjs).
  const dpopNonce = String((await resolveConfigurationProperty(['provider', 'environment', 'DPOP_NONCE'])) ?? '').trim() === '1';
  const onStage = { dpopNonce, routes: routeFunctions() };

  const resources = {};
  for (const [name, granted] of Object.entries(permissions)) {
    const grants = grantsOnStage(name, granted ?? {}, onStage);
    resources[`${capitalized(name)}Role`] = role(service, stage, name, grants, secretParameter, signingParameters);
    resources[`${capitalized(name)}ErrorsAlarm`] = lambdaAlarm(
      name,
      'Errors',
      'Sum',
      1,
      `${name}: invocations that failed (an unhandled error or a timeout)`,
    );
    // Only registration has concurrency of its own (reservedConcurrency): every other function is throttled
    // only when the account's is used up, which the one LambdaThrottlesAlarm below sees. A stack holds at
    // most 500 resources (CloudFormation): an alarm per function of a thing they share would spend 53.
    if (name === 'userRegister') {
      resources.UserRegisterThrottlesAlarm = lambdaAlarm(
        name,
        'Throttles',
        'Sum',
        1,
        `${name}: invocations refused for its reserved concurrency`,
      );
    }
    // The queue's consumer has a timeout of its own; its deadline leaves what it cannot send to the queue.
    // So has the eraser, which stops taking pages at 70 % of it, and the events' publisher.
    const ownTimeout = {
      smsSend: smsQueueSettings.consumerTimeout,
      accountsErase: eraserSettings.timeout,
      eventsPublish: eventsSettings.timeout,
    };
    const seconds = Object.hasOwn(ownTimeout, name) ? Number(ownTimeout[name]) : timeoutSeconds;
    resources[`${capitalized(name)}DurationAlarm`] = lambdaAlarm(
      name,
      'Duration',
      'Maximum',
      seconds * 1000 * 0.8,
      `${name}: a call took over 80 % of the ${seconds} s timeout (its deadline answers at 90 %)`,
    );
  }

  Object.assign(resources, paymentServiceInvoke(paymentServiceRoleArn), smsQueue(smsQueueSettings), events(service, stage));

  // Lambda's Throttles with no dimension: every function of the account in the region.
  resources.LambdaThrottlesAlarm = alarm("invocations refused for concurrency: the account's concurrency in the region is used up", {
    Namespace: 'AWS/Lambda',
    MetricName: 'Throttles',
    Statistic: 'Sum',
    Period: 300,
    EvaluationPeriods: 1,
    Threshold: 1,
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
  });
  resources.AlarmTopic = { Type: 'AWS::SNS::Topic', Properties: { DisplayName: `${service} ${stage} alarms` } };
  resources.AlarmEmailSubscription = {
    Type: 'AWS::SNS::Subscription',
    Condition: 'HasAlarmEmail',
    Properties: { TopicArn: { Ref: 'AlarmTopic' }, Protocol: 'email', Endpoint: { Ref: 'AlarmEmail' } },
  };

  /** A sum over 5 minutes of one of the API's own metrics, as an input of the rate below. */
  const apiSum = (id, metricName) => ({
    Id: id,
    ReturnData: false,
    MetricStat: {
      Metric: {
        Namespace: 'AWS/ApiGateway',
        MetricName: metricName,
        Dimensions: [
          { Name: 'ApiId', Value: { Ref: 'HttpApi' } },
          { Name: 'Stage', Value: '$default' },
        ],
      },
      Period: 300,
      Stat: 'Sum',
    },
  });
  resources.Api5xxRateAlarm = alarm('The API answered 5xx to more than 1 % of requests over 5 minutes (its own 503s and 500s included)', {
    Metrics: [
      apiSum('errors', '5xx'),
      apiSum('requests', 'Count'),
      { Id: 'rate', Expression: 'IF(requests > 20, 100 * errors / requests, 0)', Label: '5xx %', ReturnData: true },
    ],
    EvaluationPeriods: 1,
    Threshold: 1,
    ComparisonOperator: 'GreaterThanThreshold',
  });

  resources.SmsSpendAlarm = alarm(`SMS spend this month passed ${alarms.smsSpendUsd} USD (AWS/SNS SMSMonthToDateSpentUSD)`, {
    Namespace: 'AWS/SNS',
    MetricName: 'SMSMonthToDateSpentUSD',
    Statistic: 'Maximum',
    Period: 3600,
    EvaluationPeriods: 1,
    Threshold: Number(alarms.smsSpendUsd),
    ComparisonOperator: 'GreaterThanThreshold',
  });

  for (const country of String(alarms.smsCountries)
    .split(',')
    .map((code) => code.trim().toUpperCase())
    .filter(Boolean)) {
    resources[`SmsDelivery${country}Alarm`] = alarm(`SMS to ${country}: under 80 % delivered over an hour (AWS/SNS SMSSuccessRate)`, {
      Namespace: 'AWS/SNS',
      MetricName: 'SMSSuccessRate',
      Dimensions: [
        { Name: 'Country', Value: country },
        { Name: 'SMSType', Value: 'Transactional' },
      ],
      Statistic: 'Average',
      Period: 3600,
      EvaluationPeriods: 1,
      Threshold: 0.8,
      ComparisonOperator: 'LessThanThreshold',
    });
  }
  resources.SmsPublishFailuresAlarm = alarm(
    `SNS refused or failed to take SMS: 5 or more publish failures in 5 minutes (${METRICS.namespace} sms_failed)`,
    {
      Namespace: METRICS.namespace,
      MetricName: 'sms_failed',
      Dimensions: [{ Name: 'service', Value: METRICS.service }],
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: 5,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    },
  );

  const tableMetric = (metric, stat) => ({
    Namespace: 'AWS/DynamoDB',
    MetricName: metric,
    Dimensions: [{ Name: 'TableName', Value: { Ref: 'WalletTable' } }],
    Statistic: stat,
    Period: 300,
    EvaluationPeriods: 1,
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
  });
  resources.TableReadThrottleAlarm = alarm('DynamoDB throttled reads of the table', {
    ...tableMetric('ReadThrottleEvents', 'Sum'),
    Threshold: 1,
  });
  resources.TableWriteThrottleAlarm = alarm('DynamoDB throttled writes to the table', {
    ...tableMetric('WriteThrottleEvents', 'Sum'),
    Threshold: 1,
  });
  resources.TableSystemErrorsAlarm = alarm('DynamoDB answered requests to the table with system errors (HTTP 500)', {
    Metrics: [
      ...TABLE_OPERATIONS.map((operation, index) => ({
        Id: `op${index}`,
        ReturnData: false,
        MetricStat: {
          Metric: {
            Namespace: 'AWS/DynamoDB',
            MetricName: 'SystemErrors',
            Dimensions: [
              { Name: 'TableName', Value: { Ref: 'WalletTable' } },
              { Name: 'Operation', Value: operation },
            ],
          },
          Period: 300,
          Stat: 'Sum',
        },
      })),
      { Id: 'total', Expression: TABLE_OPERATIONS.map((_, index) => `op${index}`).join(' + '), Label: 'system errors', ReturnData: true },
    ],
    EvaluationPeriods: 1,
    Threshold: 1,
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
  });

  return {
    // The alarm e-mail is the stack's parameter, its default ALARM_EMAIL when packaged: a deploy
    // without it keeps none, and CloudFormation can set one later without packaging again.
    Parameters: {
      AlarmEmail: {
        Type: 'String',
        Default: alarms.email,
        Description: 'Where the alarms are e-mailed (empty: nowhere; the topic AlarmTopicArn still takes other subscribers)',
        AllowedPattern: '^$|^[^@\\s]+@[^@\\s]+$',
        ConstraintDescription: 'one e-mail address, or empty',
      },
    },
    Conditions: { HasAlarmEmail: { 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'AlarmEmail' }, ''] }] } },
    Resources: resources,
    Outputs: {
      AlarmTopicArn: { Value: { Ref: 'AlarmTopic' } },
      // What the payment service invokes (aws lambda invoke --function-name ...).
      RedeemAuthorizationFunctionArn: { Value: { 'Fn::GetAtt': ['RedeemAuthorizationLambdaFunction', 'Arn'] } },
      // What the wallet's other services subscribe to (docs/events.md): their rules go on this bus.
      EventBusName: { Value: { 'Fn::GetAtt': ['EventBus', 'Name'] } },
      EventBusArn: { Value: { 'Fn::GetAtt': ['EventBus', 'Arn'] } },
    },
  };
};
module.exports.grantsOnStage = grantsOnStage;
module.exports.routeFunctions = routeFunctions;
