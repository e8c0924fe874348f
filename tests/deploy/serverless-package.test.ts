import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { endpoints } from '../../lib/api/endpoints.js';
import { readConfig } from '../../lib/config.js';
import { JWKS_PATH, OPENID_CONFIGURATION_PATH } from '../../lib/sessions/discovery.js';
import { TTL_ATTRIBUTE, tableDefinition } from '../../lib/store/table-definition.js';
import { readZip } from '../../scripts/bench/zip.js';
import { RUN_TEMP_PREFIX } from '../setup/run-temp-folder.js';
import { LOCAL_SETTINGS, PAYMENT_SERVICE_ROLE, packageStage, SECRET_IN_ENVIRONMENT, SIGNING_KEY_CANARY } from '../setup/shared-package.js';
import { type Resource, sharedPackage, type Template } from './packaged-stage.js';

const root = resolve(import.meta.dirname, '../..');
type Statement = { Effect: string; Action: string[]; Resource?: unknown; NotResource?: unknown; Condition?: Record<string, any> };
let template: Template;
let resources: Record<string, Resource>;
let packagedText: string;
let outDir: string;
const require = createRequire(import.meta.url);
const { ZIP_BUDGET_BYTES } = require('../../serverless/zip-budgets.cjs') as { ZIP_BUDGET_BYTES: number };
const permissions = require('../../serverless/permissions.cjs') as Record<
  string,
  {
    table?: { actions: string[]; keys: string[]; attributes?: string[]; returns?: string[] }[];
    secret?: boolean;
    signingKeys?: 'sign' | 'verify';
  }
>;
const keyKinds = require('../../serverless/key-kinds.cjs') as Record<string, string>;

/** What packaging a stage with these settings says when it refuses (undefined: it packaged), and what it left in its folder. */
async function refusal(env: Record<string, string>, stage = 'ci'): Promise<{ output: string | undefined; left: string[] }> {
  const folder = mkdtempSync(join(tmpdir(), 'wallet-refused-'));
  try {
    const output = await packageStage(folder, stage, env).then(
      () => undefined,
      (error: { stdout: string; stderr: string }) => `${error.stdout}${error.stderr}`,
    );
    return { output, left: readdirSync(folder) };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const roleIds = () => Object.keys(resources).filter((id) => resources[id]!.Type === 'AWS::IAM::Role');
const statementsOf = (roleId: string): Statement[] =>
  resources[roleId]!.Properties.Policies.flatMap((policy: any) => policy.PolicyDocument.Statement);
const allStatements = () => roleIds().flatMap(statementsOf);
/** What a Lambda event source needs of the table's stream: eventsPublish's, on the stream alone. */
const STREAM_ACTIONS = ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'];
// biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's own ${} (Fn::Sub)
const STREAM_ARN = { 'Fn::Sub': '${WalletTable.StreamArn}' };
const isStreamStatement = (statement: Statement) => JSON.stringify(statement.Resource) === JSON.stringify(STREAM_ARN);
/** The statements on the table's items (not its stream). */
const tableStatementsOf = (roleId: string) =>
  statementsOf(roleId).filter(
    (statement) => !isStreamStatement(statement) && statement.Action.some((action) => action.startsWith('dynamodb:')),
  );
const leadingKeys = (statement: Statement): string[] | undefined =>
  statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
const functionName = (roleId: string) => roleId[0]!.toLowerCase() + roleId.slice(1, -'Role'.length);

// `serverless package` must work offline, with no AWS credentials at all: the run's ci package.
async function packageCi(): Promise<void> {
  const ci = await sharedPackage('ci');
  outDir = ci.folder;
  packagedText = readdirSync(outDir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => readFileSync(join(outDir, name), 'utf8'))
    .join('\n');
  template = ci.template;
  resources = template.Resources;
}

/** The functions serverless.yml declares for a stage: the route table's (serverless/functions.cjs) and its own. */
function declaredFunctions(stage: string): Record<string, { handler: string }> {
  const { functions } = parse(readFileSync(join(root, 'serverless.yml'), 'utf8'), { logLevel: 'silent' }) as { functions: unknown[] };
  const { httpFunctions } = createRequire(import.meta.url)('../../serverless/functions.cjs') as {
    httpFunctions: (stage: string, parameters: Record<string, unknown>) => Record<string, { handler: string }>;
  };
  const declared: Record<string, { handler: string }> = {};
  for (const entry of functions) {
    if (typeof entry === 'object') Object.assign(declared, entry);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless's own ${} variables
    else expect(entry).toBe('${file(./serverless/functions.cjs)}');
  }
  return { ...httpFunctions(stage, {}), ...declared };
}

/** The files of a function's zip, by name. */
const unzip = (file: string) => new Map(readZip(readFileSync(file)).map((entry) => [entry.name, entry.data()]));

/** What an ES module exports, as a fresh Node process imports it with the given environment. */
async function exportsOf(file: string, env: Record<string, string>): Promise<Record<string, string>> {
  const script = [
    "const { pathToFileURL } = await import('node:url');",
    'const module = await import(pathToFileURL(process.argv[1]));',
    'console.log(JSON.stringify(Object.fromEntries(Object.entries(module).map(([name, value]) => [name, typeof value]))));',
  ].join('\n');
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, file], {
    env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

/** How a template holds redeemAuthorization: its role, whether any HTTP integration reaches it, who may invoke it. */
function redeemFunctionShape(all: Record<string, Resource>) {
  const reaches = (resource: Resource) => JSON.stringify(resource.Properties ?? {}).includes('RedeemAuthorizationLambdaFunction');
  const of = (type: string) => Object.values(all).filter((resource) => resource.Type === type && reaches(resource));
  return {
    role: all.RedeemAuthorizationLambdaFunction?.Properties.Role,
    routed: of('AWS::ApiGatewayV2::Integration').length > 0,
    invokers: of('AWS::Lambda::Permission').map((permission) => [permission.Properties.Action, permission.Properties.Principal]),
  };
}

const ofType = (type: string) => Object.values(resources).filter((resource) => resource.Type === type);

describe('the packaged CloudFormation', () => {
  beforeAll(packageCi, 180_000);

  it('declares the one table: on demand, point-in-time recovery, TTL, kept on stack deletion', () => {
    const [table, ...others] = ofType('AWS::DynamoDB::Table');
    expect(others).toHaveLength(0);
    expect(table!.DeletionPolicy).toBe('Retain');
    expect(table!.Properties).toMatchObject({
      TableName: 'wallet-auth-ci',
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    });
  });

  it('has the same keys as the table that npm start and the tests create', () => {
    const [table] = ofType('AWS::DynamoDB::Table');
    const local = tableDefinition('wallet-auth-ci');
    expect(table!.Properties.KeySchema).toEqual(local.KeySchema);
    expect(table!.Properties.AttributeDefinitions).toEqual(local.AttributeDefinitions);
    expect(table!.Properties.GlobalSecondaryIndexes ?? []).toEqual(local.GlobalSecondaryIndexes ?? []);
    // The same stream, which the events' publisher reads: each change with the item before and after.
    expect(table!.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(local.StreamSpecification).toEqual({
      StreamEnabled: true,
      StreamViewType: table!.Properties.StreamSpecification.StreamViewType,
    });
  });

  it('routes exactly the documented operations, the discovery document and JWKS, the console, and a catch-all on an HTTP API', () => {
    const routes = ofType('AWS::ApiGatewayV2::Route')
      .map((route) => route.Properties.RouteKey)
      .sort();
    const documented = Object.values(endpoints).map((endpoint) => `${endpoint.method} ${endpoint.path}`);
    const wellKnown = [`GET ${OPENID_CONFIGURATION_PATH}`, `GET ${JWKS_PATH}`];
    const consolePage = ['GET /console', 'GET /console/{asset}'];
    expect(routes).toEqual(['$default', ...documented, ...wellKnown, ...consolePage].sort());
  });

  it('gives the console a role that may write its logs and nothing else', () => {
    expect(
      statementsOf('ConsoleRole')
        .flatMap((statement) => statement.Action)
        .sort(),
    ).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
  });

  it('throttles the stage, and registration (three scrypt hashes per call) tighter, once its route exists', () => {
    const [stage, ...others] = ofType('AWS::ApiGatewayV2::Stage') as (Resource & { DependsOn: string[] })[];
    expect(others).toHaveLength(0);
    expect(stage!.Properties.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 });
    const registerRoute = 'POST /wallet/v3/auth/user_register';
    expect(stage!.Properties.RouteSettings).toEqual({ [registerRoute]: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 } });
    // A route setting for a route not yet created fails the deploy: the stage must wait for it.
    const [routeId] = Object.entries(resources).find(([, resource]) => resource.Properties.RouteKey === registerRoute)!;
    expect(stage!.DependsOn).toContain(routeId);
  });

  it('runs every function on nodejs22.x, arm64', () => {
    const functions = ofType('AWS::Lambda::Function');
    expect(functions).toHaveLength(Object.keys(declaredFunctions('ci')).length);
    for (const fn of functions) {
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
    }
  });

  it('gives each function a role of its own, with nothing on every resource', () => {
    const functions = Object.entries(resources).filter(([, resource]) => resource.Type === 'AWS::Lambda::Function');
    expect(functions.map(([id]) => id.replace(/LambdaFunction$/, '')).sort()).toEqual(
      Object.keys(permissions)
        .map((name) => name[0]!.toUpperCase() + name.slice(1))
        .sort(),
    );
    for (const [id, fn] of functions) {
      const role = id.replace(/LambdaFunction$/, 'Role');
      expect(fn.Properties.Role).toEqual({ 'Fn::Sub': `\${${role}.Arn}` });
      // The reference orders the role first: no DependsOn says it again (cfn-lint W3005).
      expect(resources[id]!.DependsOn ?? [], id).not.toContain(role);
    }
    // No role may do anything to every resource but write its own log stream.
    const everything = allStatements().filter(
      (statement) => statement.Resource === '*' || JSON.stringify(statement.Resource ?? '').includes(':*:*:*'),
    );
    expect(everything).toEqual([]);
    expect(allStatements().flatMap((statement) => statement.Action)).not.toContain('dynamodb:Scan');
    expect(ofType('AWS::IAM::Role')).toHaveLength(Object.keys(permissions).length);
  });

  it('holds each table statement to the partition keys of the kinds of item its grant names (dynamodb:LeadingKeys)', () => {
    for (const roleId of roleIds()) {
      const name = functionName(roleId);
      const statements = tableStatementsOf(roleId);
      expect(
        statements.map((statement) => ({ actions: statement.Action, partitions: leadingKeys(statement) })),
        name,
      ).toEqual(
        (permissions[name]!.table ?? []).map((grant) => ({
          actions: grant.actions.map((action) => `dynamodb:${action}`),
          partitions: [...new Set(grant.keys.map((kind) => keyKinds[kind]))],
        })),
      );
      for (const statement of statements) expect(statement.Resource, name).toEqual({ 'Fn::GetAtt': ['WalletTable', 'Arn'] });
    }
  });

  it('holds each grant with attributes to them, and to no ReturnValues but NONE and what the grant names', () => {
    const bound = Object.entries(permissions).flatMap(([name, granted]) =>
      (granted.table ?? []).filter((grant) => grant.attributes).map((grant) => ({ name, grant })),
    );
    // Recording a session's use, marking notifications read, and the PIN and device roles' updates of a user's partition.
    expect(new Set(bound.map(({ name }) => name)).size).toBeGreaterThanOrEqual(12);
    for (const { name, grant } of bound) {
      const role = `${name[0]!.toUpperCase()}${name.slice(1)}Role`;
      const statement = tableStatementsOf(role).find(
        (candidate) =>
          JSON.stringify(candidate.Condition?.['ForAllValues:StringEquals']?.['dynamodb:Attributes']) ===
          JSON.stringify(['pk', 'sk', ...grant.attributes!]),
      );
      expect(statement?.Action, `${role} ${grant.keys}`).toEqual(grant.actions.map((action) => `dynamodb:${action}`));
      expect(statement!.Condition!.StringEqualsIfExists, role).toEqual({
        'dynamodb:ReturnValues': grant.returns ? ['NONE', ...grant.returns] : 'NONE',
      });
    }
  });

  it('lets verify_otp delete nothing but wrong-code windows, evicted devices and their sessions, and what completing a pending phone change takes, and login_phone and referral_program write nothing of a user but a session’s last use', () => {
    const deletes = (roleId: string) =>
      tableStatementsOf(roleId)
        .filter((statement) => statement.Action.some((action) => action === 'dynamodb:DeleteItem' || action === 'dynamodb:BatchWriteItem'))
        .map(leadingKeys);
    // An emptied wrong-code window; at an OTP login binding an 11th device, the least recently used one (its index and
    // listing item) and its sessions, in the user's partition. At an OTP login that completes a pending phone change
    // (contract 3.11, round 5), what the immediate change deletes: the old number's claim and login code, and the
    // change's own items (in the user's partition, and its index by the new number), and when it reclaims the new
    // number from a holder who never proved it (contract 6), that holder's email claim. Never a proof. A recovery's
    // completion removes the user's passkeys and their credential claims (contract 3.15, second reading).
    const verifyDeletes = deletes('VerifyOtpRole').flat();
    expect([...new Set(verifyDeletes)].sort()).toEqual(
      // A passkey and a device are both items of the user's partition: one pattern.
      [
        ...new Set([
          keyKinds.deviceIndex,
          keyKinds.phoneFailures,
          keyKinds.userDevice,
          keyKinds.otp,
          keyKinds.phoneClaim,
          keyKinds.phoneChangeIndex,
          keyKinds.emailClaim,
          keyKinds.userPasskey,
          keyKinds.passkeyCredential,
        ]),
      ].sort(),
    );
    expect(verifyDeletes).not.toContain(keyKinds.phoneProof);
    // login_phone and referral_program write a user's partition only to record a session's use.
    for (const roleId of ['LoginPhoneRole', 'ReferralProgramRole']) {
      const writesToUsers = tableStatementsOf(roleId).filter(
        (statement) =>
          leadingKeys(statement)!.includes(keyKinds.user!) &&
          statement.Action.some((action) => action !== 'dynamodb:GetItem' && action !== 'dynamodb:Query'),
      );
      expect(writesToUsers, roleId).toEqual([
        {
          Effect: 'Allow',
          Action: ['dynamodb:UpdateItem'],
          Resource: { 'Fn::GetAtt': ['WalletTable', 'Arn'] },
          Condition: {
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [keyKinds.session] },
            'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'last_used_at'] },
            StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
          },
        },
      ]);
    }
  });

  it('lets only smsSend publish SMS, and only to phone numbers; the functions that send a code or warn the number only queue them', () => {
    const publishers = roleIds().filter((roleId) => statementsOf(roleId).some((statement) => statement.Action.includes('sns:Publish')));
    expect(publishers).toEqual(['SmsSendRole']);
    expect(statementsOf('SmsSendRole').filter((statement) => statement.Action.includes('sns:Publish'))).toEqual([
      { Effect: 'Allow', Action: ['sns:Publish'], NotResource: 'arn:aws:sns:*:*:*' },
    ]);
    const queueArn = { 'Fn::GetAtt': ['SmsQueue', 'Arn'] };
    const queueUsers = roleIds().filter((roleId) =>
      statementsOf(roleId).some((statement) => statement.Action.some((action: string) => action.startsWith('sqs:'))),
    );
    // The events' publisher sends to its own dead-letter queue only (below).
    // A PIN reset or change, a device's removal, an export, a deletion and a profile change held by an SMS-strength session queue a warning (3.15).
    expect(queueUsers.sort()).toEqual([
      'AdminUsersPhoneApproveRole',
      'ChangePinRole',
      'DevicesRemoveRole',
      'EventsPublishRole',
      'LoginPhoneRole',
      'ResetPinRole',
      'SmsSendRole',
      'UserDeleteRole',
      'UserExportRole',
      'UserPhoneChangeRole',
      'UserProfileUpdateRole',
      'VerifyOtpRole',
    ]);
    const smsQueueUsers = queueUsers.filter((roleId) =>
      statementsOf(roleId).some((statement) => JSON.stringify(statement.Resource ?? '').includes('"SmsQueue"')),
    );
    const senders = [
      'AdminUsersPhoneApproveRole',
      'ChangePinRole',
      'DevicesRemoveRole',
      'LoginPhoneRole',
      'ResetPinRole',
      'UserDeleteRole',
      'UserExportRole',
      'UserPhoneChangeRole',
      'UserProfileUpdateRole',
      'VerifyOtpRole',
    ];
    expect(smsQueueUsers.sort()).toEqual([...senders, 'SmsSendRole'].sort());
    for (const sender of senders) {
      expect(statementsOf(sender).filter((statement) => statement.Action.some((action: string) => action.startsWith('sqs:')))).toEqual([
        { Effect: 'Allow', Action: ['sqs:SendMessage'], Resource: queueArn },
      ]);
    }
    expect(statementsOf('SmsSendRole').find((statement) => statement.Action.includes('sqs:ReceiveMessage'))?.Resource).toEqual(queueArn);
  });

  it('sends texts through an encrypted queue: smsSend consumes it at most 2 at once, reports failed items, and a dead-letter queue alarms', () => {
    expect(resources.LoginPhoneLambdaFunction!.Properties.Environment.Variables).toMatchObject({
      SMS_DELIVERY: 'queue',
      SMS_QUEUE_URL: { Ref: 'SmsQueue' },
      SMS_QUEUE_CONSUMERS: '2',
    });
    const mapping = ofType('AWS::Lambda::EventSourceMapping').filter((candidate) =>
      JSON.stringify(candidate.Properties.EventSourceArn).includes('SmsQueue'),
    );
    expect(mapping).toHaveLength(1);
    expect(mapping[0]!.Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': ['SmsQueue', 'Arn'] },
      FunctionName: { 'Fn::GetAtt': ['SmsSendLambdaFunction', 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 2 },
    });
    const timeout = resources.SmsSendLambdaFunction!.Properties.Timeout;
    expect(resources.SmsQueue!.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 6 * timeout,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': ['SmsDeadLetterQueue', 'Arn'] }, maxReceiveCount: 5 },
    });
    // Kept no longer than a code could be worth sending, after five tries a visibility timeout apart.
    expect(resources.SmsQueue!.Properties.MessageRetentionPeriod).toBeGreaterThan(5 * 6 * timeout);
    expect(resources.SmsDeadLetterQueue!.Properties.SqsManagedSseEnabled).toBe(true);
    expect(resources.SmsDeadLettersAlarm!.Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': ['SmsDeadLetterQueue', 'QueueName'] } }],
      Threshold: 1,
    });
    expect(resources.SmsQueueAgeAlarm!.Properties).toMatchObject({ MetricName: 'ApproximateAgeOfOldestMessage', Threshold: 60 });
  });

  it('lets referral_program read, and write nothing but the last use of a session', () => {
    const actions = tableStatementsOf('ReferralProgramRole').flatMap((statement) => statement.Action);
    expect([...new Set(actions)].sort()).toEqual(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
    const [update, ...others] = tableStatementsOf('ReferralProgramRole').filter((statement) =>
      statement.Action.includes('dynamodb:UpdateItem'),
    );
    expect(others).toEqual([]);
    expect(update!.Action).toEqual(['dynamodb:UpdateItem']);
    expect(update!.Condition).toMatchObject({
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'last_used_at'] },
      StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
    });
  });

  it('lets each function read the server secret and the signing keys it uses, and nothing else of SSM', () => {
    const parameter = (name: string) => ({
      'Fn::Sub': `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter/wallet-auth/ci/${name}`,
    });
    const signing: Record<string, string[]> = { sign: ['signing-keys', 'signing-keys-public'], verify: ['signing-keys-public'] };
    for (const roleId of roleIds()) {
      const ssm = statementsOf(roleId).filter((statement) => statement.Action.some((action) => action.startsWith('ssm:')));
      const granted = permissions[functionName(roleId)]!;
      const names = [...(granted.secret ? ['server-secret'] : []), ...(signing[granted.signingKeys ?? ''] ?? [])];
      expect(ssm, roleId).toEqual(names.length ? [{ Effect: 'Allow', Action: ['ssm:GetParameter'], Resource: names.map(parameter) }] : []);
    }
    // Only the functions that answer a session (a step-up: its new access token) read the private keys.
    const signers = Object.entries(permissions)
      .filter(([, granted]) => granted.signingKeys === 'sign')
      .map(([name]) => name)
      .sort();
    expect(signers).toEqual(['loginPin', 'passkeysLogin', 'stepUp', 'tokenRefresh', 'userRegister', 'verifyOtp']);
    for (const fn of ofType('AWS::Lambda::Function')) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        SERVER_SECRET_PARAMETER: '/wallet-auth/ci/server-secret',
        SERVER_SECRET_FILE: '',
        SIGNING_KEYS_PARAMETER: '/wallet-auth/ci/signing-keys',
        SIGNING_PUBLIC_KEYS_PARAMETER: '/wallet-auth/ci/signing-keys-public',
        SIGNING_KEYS_FILE: '',
        // The deployer's, else its default: the algorithm of the keys the stage makes.
        ACCESS_TOKEN_ALG: 'ES256',
        // The issuer is the HTTP API's own URL: verifiers find the discovery document under it.
        // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's own ${} (Fn::Sub)
        TOKEN_ISSUER: { 'Fn::Sub': 'https://${HttpApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}' },
      });
    }
  });

  it('holds no secret: packaged with SERVER_SECRET and SIGNING_KEYS set, neither the template nor any function environment has them', () => {
    expect(packagedText).not.toContain(SECRET_IN_ENVIRONMENT);
    expect(packagedText).not.toContain(SIGNING_KEY_CANARY);
    for (const fn of ofType('AWS::Lambda::Function')) {
      expect(Object.keys(fn.Properties.Environment.Variables)).not.toContain('SERVER_SECRET');
      expect(Object.keys(fn.Properties.Environment.Variables)).not.toContain('SIGNING_KEYS');
    }
  });

  it('points no function at a local stand-in: each local setting is empty', () => {
    const standIns = LOCAL_SETTINGS.filter((name) => !['SMS_DELIVERY', 'SMS_QUEUE_URL', 'EVENTS_DLQ_URL'].includes(name));
    for (const fn of ofType('AWS::Lambda::Function')) {
      const variables = fn.Properties.Environment.Variables;
      for (const name of standIns) expect(variables[name] ?? '', `${fn.Properties.Handler} ${name}`).toBe('');
      expect(variables, fn.Properties.Handler).toMatchObject({ SMS_DELIVERY: 'queue', SMS_QUEUE_URL: { Ref: 'SmsQueue' } });
    }
    // The events' publisher alone has the bus and its dead-letter queue: the stack's own, not a local sink's.
    const withBus = Object.entries(resources).filter(([, resource]) => resource.Properties?.Environment?.Variables?.EVENT_BUS_NAME);
    expect(withBus.map(([id]) => id)).toEqual(['EventsPublishLambdaFunction']);
    expect(resources.EventsPublishLambdaFunction!.Properties.Environment.Variables).toMatchObject({
      EVENT_BUS_NAME: { Ref: 'EventBus' },
      EVENTS_DLQ_URL: { Ref: 'EventsDeadLetterQueue' },
      EVENTBRIDGE_ENDPOINT: '',
    });
  });

  it('starts every function: lib/config.ts takes each function’s environment as a deployed stage', () => {
    // Found so: every function but login_phone lacked the queue's URL, and a deployed stage refuses queue delivery without it.
    for (const fn of ofType('AWS::Lambda::Function')) {
      const variables = Object.entries(fn.Properties.Environment.Variables as Record<string, unknown>).map(([name, value]) => [
        name,
        typeof value === 'string'
          ? value
          : name === 'SMS_QUEUE_URL' || name === 'EVENTS_DLQ_URL'
            ? 'https://sqs.us-east-1.amazonaws.com/123456789012/queue'
            : name === 'EVENT_BUS_NAME'
              ? 'wallet-auth-ci'
              : name === 'TOKEN_ISSUER'
                ? 'https://abcdef1234.execute-api.us-east-1.amazonaws.com'
                : String(value),
      ]);
      const config = readConfig(Object.fromEntries(variables));
      expect(config.sms.queueUrl, fn.Properties.Handler).toBeDefined();
      expect(config.dynamodbEndpoint, fn.Properties.Handler).toBeUndefined();
    }
  });

  it('reserves concurrency for registration, and only there', () => {
    const reserved = Object.entries(resources)
      .filter(([, resource]) => resource.Properties?.ReservedConcurrentExecutions !== undefined)
      .map(([id, resource]) => [id, resource.Properties.ReservedConcurrentExecutions]);
    expect(reserved).toEqual([['UserRegisterLambdaFunction', 20]]);
  });

  it('alarms on each function’s errors and duration near its timeout, on registration’s throttles and the account’s, within 500 resources', () => {
    for (const roleId of roleIds()) {
      const fn = roleId.slice(0, -'Role'.length);
      const dimension = [{ Name: 'FunctionName', Value: { Ref: `${fn}LambdaFunction` } }];
      expect(resources[`${fn}ErrorsAlarm`]!.Properties).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: dimension,
        Threshold: 1,
      });
      // Registration alone has reserved concurrency; every other function is throttled only by the account's.
      if (fn === 'UserRegister')
        expect(resources[`${fn}ThrottlesAlarm`]!.Properties).toMatchObject({ MetricName: 'Throttles', Dimensions: dimension });
      else expect(resources[`${fn}ThrottlesAlarm`], fn).toBeUndefined();
      // 80 % of the function's own timeout (10 s; the queue's consumer 20 s).
      const timeoutMs = resources[`${fn}LambdaFunction`]!.Properties.Timeout * 1000;
      expect(resources[`${fn}DurationAlarm`]!.Properties).toMatchObject({
        MetricName: 'Duration',
        Statistic: 'Maximum',
        Threshold: 0.8 * timeoutMs,
      });
    }
    expect(resources.LambdaThrottlesAlarm!.Properties).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Throttles', Threshold: 1 });
    expect(resources.LambdaThrottlesAlarm!.Properties.Dimensions).toBeUndefined();
    // CloudFormation's limit of a stack is 500 resources: room for 5 more functions (each takes 7).
    expect(Object.keys(resources).length).toBeLessThanOrEqual(465);
  });

  it('alarms on the API’s 5xx rate, SMS spend and delivery, and the table’s throttles and system errors, all to one topic', () => {
    const rate = resources.Api5xxRateAlarm!.Properties;
    expect(rate.Metrics.map((metric: any) => metric.MetricStat?.Metric.MetricName ?? metric.Expression)).toEqual([
      '5xx',
      'Count',
      'IF(requests > 20, 100 * errors / requests, 0)',
    ]);
    expect(resources.SmsSpendAlarm!.Properties).toMatchObject({
      Namespace: 'AWS/SNS',
      MetricName: 'SMSMonthToDateSpentUSD',
      Threshold: 50,
    });
    expect(resources.SmsDeliveryUSAlarm!.Properties).toMatchObject({
      MetricName: 'SMSSuccessRate',
      ComparisonOperator: 'LessThanThreshold',
    });
    expect(resources.SmsPublishFailuresAlarm!.Properties).toMatchObject({ Namespace: 'WalletAuth', MetricName: 'sms_failed' });
    expect(resources.TableReadThrottleAlarm!.Properties.MetricName).toBe('ReadThrottleEvents');
    expect(resources.TableWriteThrottleAlarm!.Properties.MetricName).toBe('WriteThrottleEvents');
    expect(JSON.stringify(resources.TableSystemErrorsAlarm!.Properties.Metrics)).toContain('SystemErrors');
    const alarms = ofType('AWS::CloudWatch::Alarm');
    // Each function's two (errors, duration); registration's throttles and the account's; the API's, SMS's and the
    // table's nine; the events' dead letters and the publisher's lag.
    expect(alarms.length).toBe(2 * roleIds().length + 2 + 11);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: 'AlarmTopic' }]);
    // The e-mail subscriber is the stack's parameter (ALARM_EMAIL its default): none given, none subscribed.
    expect(resources.AlarmEmailSubscription).toMatchObject({
      Condition: 'HasAlarmEmail',
      Properties: { Protocol: 'email', Endpoint: { Ref: 'AlarmEmail' } },
    });
    expect(template.Parameters?.AlarmEmail).toMatchObject({ Type: 'String', Default: '' });
    expect(template.Conditions.HasAlarmEmail).toEqual({ 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'AlarmEmail' }, ''] }] });
  });

  it('packages every function of serverless.yml, each as one ESM file that exports its handler', async () => {
    const declared = declaredFunctions('ci');
    expect(Object.keys(declared).length).toBeGreaterThan(0);
    const packaged = Object.entries(resources)
      .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
      .map(([id, resource]) => [id.replace(/LambdaFunction$/, ''), resource.Properties.Handler]);
    const capitalized = (name: string) => name[0]!.toUpperCase() + name.slice(1);
    expect(packaged.sort()).toEqual(
      Object.entries(declared)
        .map(([name, fn]) => [capitalized(name), fn.handler])
        .sort(),
    );
    const zips = readdirSync(outDir).filter((name) => name.endsWith('.zip'));
    expect(zips.sort()).toEqual(
      Object.keys(declared)
        .map((name) => `${name}.zip`)
        .sort(),
    );

    const unpacked = mkdtempSync(join(tmpdir(), 'wallet-unpacked-'));
    for (const [name, fn] of Object.entries(declared)) {
      const files = unzip(join(outDir, `${name}.zip`));
      // functions/user-register.handler: the export handler of functions/user-register.mjs.
      const handlerFile = fn.handler.replace(/\.handler$/, '.mjs');
      expect([...files.keys()], name).toEqual([handlerFile]);
      const file = join(unpacked, name, handlerFile);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, files.get(handlerFile)!);
      const environment = resources[`${capitalized(name)}LambdaFunction`]!.Properties.Environment.Variables;
      expect(await exportsOf(file, environment), name).toMatchObject({ handler: 'function' });
    }
    rmSync(unpacked, { recursive: true, force: true });
  });

  it('leaves nothing in the temp folder: serverless-esbuild’s zip staging folders go with the package (serverless/zip-staging.cjs)', async () => {
    const { startedAt } = await sharedPackage('ci');
    const functions = new Set(Object.keys(declaredFunctions('ci')));
    // serverless-esbuild's own name for the folder it stages <function>.zip in: <function>-<pid>-<Date.now()>-<8 hex>.
    const staged = readdirSync(tmpdir()).filter((name) => {
      const match = /^(\w+)-\d+-(\d{13})-[0-9a-f]{8}$/.exec(name);
      return match !== null && functions.has(match[1]!) && Number(match[2]) >= startedAt;
    });
    expect(staged).toEqual([]);
  });

  it('runs in a temp folder of the run’s own, which the run’s end removes (tests/setup/run-temp-folder.ts)', () => {
    expect(basename(tmpdir())).toMatch(new RegExp(`^${RUN_TEMP_PREFIX}`));
  });

  it('gives redeemAuthorization no HTTP route, a role that redeems and nothing else, and, without PAYMENT_SERVICE_ROLE_ARN, no invoke grant', () => {
    expect(redeemFunctionShape(resources)).toEqual({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's own ${} (Fn::Sub)
      role: { 'Fn::Sub': '${RedeemAuthorizationRole.Arn}' },
      routed: false,
      invokers: [],
    });
    expect(tableStatementsOf('RedeemAuthorizationRole').map((statement) => [statement.Action, leadingKeys(statement)])).toEqual([
      [['dynamodb:UpdateItem'], [keyKinds.authorization]],
      // Its user's status: only an active user's approval pays (contract 3.8, round 5).
      [['dynamodb:GetItem'], [keyKinds.user]],
    ]);
    expect(
      statementsOf('RedeemAuthorizationRole')
        .flatMap((statement) => statement.Action)
        .sort(),
    ).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem', 'logs:CreateLogStream', 'logs:PutLogEvents']);
  });

  it('runs the eraser on an hourly schedule, with no HTTP route, a role of its own and an alarm on its errors', () => {
    const eraser = resources.AccountsEraseLambdaFunction!;
    // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's own ${} (Fn::Sub)
    expect(eraser.Properties.Role).toEqual({ 'Fn::Sub': '${AccountsEraseRole.Arn}' });
    const rules = Object.values(resources).filter(
      (resource) =>
        resource.Type === 'AWS::Events::Rule' && JSON.stringify(resource.Properties.Targets).includes('AccountsEraseLambdaFunction'),
    );
    expect(rules.map((rule) => rule.Properties.ScheduleExpression)).toEqual(['rate(1 hour)']);
    expect(JSON.stringify(ofType('AWS::ApiGatewayV2::Integration'))).not.toContain('AccountsEraseLambdaFunction');
    expect(resources.AccountsEraseErrorsAlarm?.Properties.MetricName).toBe('Errors');
    expect(statementsOf('AccountsEraseRole').flatMap((statement) => statement.Action)).not.toContain('ssm:GetParameter');
  });

  // Cold starts grow with the bundle: npm run bench measures them, this keeps the size in check.
  it('keeps every function zip within 250 KB, the passkey registration too (the attestation formats it never reads left out)', () => {
    const zips = readdirSync(outDir).filter((name) => name.endsWith('.zip'));
    expect(zips.length).toBe(ofType('AWS::Lambda::Function').length);
    expect(ZIP_BUDGET_BYTES).toBe(250 * 1024);
    for (const zip of zips) expect(statSync(join(outDir, zip)).size, zip).toBeLessThanOrEqual(ZIP_BUDGET_BYTES);
  });
});

// Apart from the packaged templates above: a refusal stops before anything is built.
describe('packaging a deployed stage', () => {
  it('refuses to package a deployed stage from a shell set up for local work, naming each local setting set', async () => {
    const local = { DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000', SMS_SENDER: 'outbox', SERVER_SECRET_FILE: '.data/server-secret' };
    const { output, left } = await refusal(local);
    expect(output, 'packaged anyway').toContain(
      'stage "ci" takes no local settings, but DYNAMODB_ENDPOINT, SERVER_SECRET_FILE, SMS_SENDER are set',
    );
    expect(left).toEqual([]);
  }, 120_000);

  it('refuses to package prod with security limits past their bounds, naming each as lib/config.ts does', async () => {
    const { output, left } = await refusal(
      { PIN_MAX_FAILURES: '100000', OTP_MAX_ATTEMPTS: '1000', LOG_LEVEL: 'WARN', ACCESS_TOKEN_ALG: 'HS256' },
      'prod',
    );
    expect(output, 'packaged anyway').toContain('stage "prod": lib/config.ts refuses the functions\' settings');
    expect(output).toContain('PIN_MAX_FAILURES must be from 1 to 10 on a deployed stage, not 100000 (every function)');
    expect(output).toContain('OTP_MAX_ATTEMPTS must be from 1 to 10 on a deployed stage, not 1000 (every function)');
    expect(output).toContain('LOG_LEVEL must be INFO or DEBUG on a deployed stage');
    expect(output).toContain('ACCESS_TOKEN_ALG must be one of ES256, RS256, not "HS256" (every function)');
    expect(left).toEqual([]);
  }, 120_000);
});

describe('the events of the packaged prod stage', () => {
  let prod: Record<string, Resource>;
  let outputs: Record<string, { Value: unknown }>;
  beforeAll(async () => {
    const packaged = (await sharedPackage('prod')).template;
    prod = packaged.Resources;
    outputs = (packaged as Template & { Outputs: Record<string, { Value: unknown }> }).Outputs;
  }, 240_000);
  const prodStatements = (roleId: string): Statement[] =>
    prod[roleId]!.Properties.Policies.flatMap((policy: any) => policy.PolicyDocument.Statement);

  it('has the bus, named after the stack, with its name and ARN as outputs', () => {
    const buses = Object.entries(prod).filter(([, resource]) => resource.Type === 'AWS::Events::EventBus');
    expect(buses).toEqual([['EventBus', { Type: 'AWS::Events::EventBus', Properties: { Name: 'wallet-auth-prod' } }]]);
    // No resource policy on it: no other account may put events a subscriber would take for ours.
    expect(Object.values(prod).filter((resource) => resource.Type === 'AWS::Events::EventBusPolicy')).toEqual([]);
    expect(outputs.EventBusName).toEqual({ Value: { 'Fn::GetAtt': ['EventBus', 'Name'] } });
    expect(outputs.EventBusArn).toEqual({ Value: { 'Fn::GetAtt': ['EventBus', 'Arn'] } });
  });

  it('streams the table with the item before and after each change', () => {
    expect(prod.WalletTable!.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
  });

  it('keeps what could not be published in an encrypted dead-letter queue for 14 days, whose first message alarms', () => {
    expect(prod.EventsDeadLetterQueue).toEqual({
      Type: 'AWS::SQS::Queue',
      Properties: { SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 },
    });
    expect(prod.EventsDeadLettersAlarm!.Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': ['EventsDeadLetterQueue', 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [{ Ref: 'AlarmTopic' }],
    });
    // A publisher a minute behind the stream alarms too.
    expect(prod.EventsPublishIteratorAgeAlarm!.Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: 'EventsPublishLambdaFunction' } }],
      Statistic: 'Maximum',
      Threshold: 60_000,
      ComparisonOperator: 'GreaterThanThreshold',
      AlarmActions: [{ Ref: 'AlarmTopic' }],
    });
  });

  it('runs eventsPublish from the stream: filtered, batches split on failure, failed records reported, given-up batches to the queue', () => {
    const mappings = Object.values(prod).filter(
      (resource) =>
        resource.Type === 'AWS::Lambda::EventSourceMapping' && JSON.stringify(resource.Properties.EventSourceArn).includes('WalletTable'),
    );
    expect(mappings).toHaveLength(1);
    const { FilterCriteria, ...properties } = mappings[0]!.Properties;
    expect(properties).toEqual({
      EventSourceArn: { 'Fn::GetAtt': ['WalletTable', 'StreamArn'] },
      FunctionName: { 'Fn::GetAtt': ['EventsPublishLambdaFunction', 'Arn'] },
      Enabled: true,
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 1,
      StartingPosition: 'TRIM_HORIZON',
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 86400,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['EventsDeadLetterQueue', 'Arn'] } } },
    });
    // Which records the patterns keep is tests/deploy/stream-filters.test.ts's; here, that there are at most 5 (Lambda's limit).
    expect(FilterCriteria.Filters.length).toBeGreaterThan(0);
    expect(FilterCriteria.Filters.length).toBeLessThanOrEqual(5);
    const fn = prod.EventsPublishLambdaFunction!.Properties;
    // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's own ${} (Fn::Sub)
    expect(fn).toMatchObject({ MemorySize: 256, Timeout: 30, Role: { 'Fn::Sub': '${EventsPublishRole.Arn}' } });
    expect(fn.Environment.Variables).toMatchObject({
      EVENT_BUS_NAME: { Ref: 'EventBus' },
      EVENTS_DLQ_URL: { Ref: 'EventsDeadLetterQueue' },
      EVENTBRIDGE_ENDPOINT: '',
      FUNCTION_TIMEOUT_SECONDS: '30',
    });
    expect(prod.EventsPublishDurationAlarm!.Properties.Threshold).toBe(0.8 * 30_000);
    expect(JSON.stringify(Object.values(prod).filter((resource) => resource.Type === 'AWS::ApiGatewayV2::Integration'))).not.toContain(
      'EventsPublishLambdaFunction',
    );
  });

  it('gives eventsPublish a role that puts events on this bus, reads this stream and sends to this queue, and nothing else', () => {
    const statements = prodStatements('EventsPublishRole');
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's own ${} (Fn::Sub)
          'Fn::Sub': 'arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/lambda/wallet-auth-prod-eventsPublish:*',
        },
      },
      { Effect: 'Allow', Action: ['events:PutEvents'], Resource: { 'Fn::GetAtt': ['EventBus', 'Arn'] } },
      { Effect: 'Allow', Action: STREAM_ACTIONS, Resource: STREAM_ARN },
      { Effect: 'Allow', Action: ['sqs:SendMessage'], Resource: { 'Fn::GetAtt': ['EventsDeadLetterQueue', 'Arn'] } },
    ]);
    // No item of the table, nothing on every resource.
    for (const statement of statements) {
      expect(statement.Resource, JSON.stringify(statement.Action)).not.toEqual({ 'Fn::GetAtt': ['WalletTable', 'Arn'] });
      expect(JSON.stringify(statement.Resource)).not.toMatch(/"\*"|:\*:\*/);
      expect(statement.NotResource).toBeUndefined();
    }
    // No other role may put events, read the stream or send to the events' queue.
    const others = Object.keys(prod)
      .filter((id) => prod[id]!.Type === 'AWS::IAM::Role' && id !== 'EventsPublishRole')
      .flatMap(prodStatements)
      .filter(
        (statement) =>
          statement.Action.some((action) => action.startsWith('events:') || STREAM_ACTIONS.includes(action)) ||
          JSON.stringify(statement.Resource ?? '').includes('EventsDeadLetterQueue') ||
          JSON.stringify(statement.Resource ?? '').includes('EventBus'),
      );
    expect(others).toEqual([]);
  });
});

describe('the events grants of serverless/permissions.cjs', () => {
  it.each([
    ['events', 'all'],
    ['stream', 'write'],
    ['deadLetters', 'sms'],
  ])('refuse to build a role with %s: %s', async (kind, value) => {
    const stack = require('../../serverless/stack.cjs') as (context: {
      resolveConfigurationProperty: (path: string[]) => Promise<unknown>;
    }) => Promise<unknown>;
    const settings: Record<string, unknown> = {
      service: 'wallet-auth',
      'custom.stage': 'ci',
      'custom.permissions': { eventsPublish: { ...permissions.eventsPublish, [kind]: value } },
      'provider.timeout': 10,
      'custom.alarms': { email: '', smsSpendUsd: 50, smsCountries: 'US' },
      'custom.paymentServiceRoleArn': '',
      'custom.smsQueue': { consumerTimeout: 20, maxReceives: 5 },
      'custom.eraser': { timeout: 300 },
      'custom.events': { timeout: 30 },
    };
    const resolveConfigurationProperty = async (path: string[]) => settings[path.join('.')];
    await expect(stack({ resolveConfigurationProperty })).rejects.toThrow(`custom.permissions.eventsPublish: ${kind} must be`);
    // As listed, it builds.
    settings['custom.permissions'] = { eventsPublish: permissions.eventsPublish };
    await expect(stack({ resolveConfigurationProperty })).resolves.toBeDefined();
  });
});

describe('packaging the prod stage with the payment service named', () => {
  it('shows redeemAuthorization with its own role, no HTTP event, and invoke granted to that one role', async () => {
    const prod = (await sharedPackage('prod')).template;
    expect(redeemFunctionShape(prod.Resources)).toEqual({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's own ${} (Fn::Sub)
      role: { 'Fn::Sub': '${RedeemAuthorizationRole.Arn}' },
      routed: false,
      invokers: [['lambda:InvokeFunction', PAYMENT_SERVICE_ROLE]],
    });
    expect(prod.Resources.RedeemAuthorizationLambdaFunction!.Properties.FunctionName).toBe('wallet-auth-prod-redeemAuthorization');
    expect(declaredFunctions('prod').redeemAuthorization).toBeDefined();
    expect((declaredFunctions('prod').redeemAuthorization as { events?: unknown }).events).toBeUndefined();
  }, 240_000);

  it.each(['*', '123456789012', 'arn:aws:iam::123456789012:root', 'lambda.amazonaws.com'])(
    'refuses to package with PAYMENT_SERVICE_ROLE_ARN %s, which is not one role',
    async (principal) => {
      const { output, left } = await refusal({ PAYMENT_SERVICE_ROLE_ARN: principal });
      expect(output, 'packaged anyway').toContain('PAYMENT_SERVICE_ROLE_ARN must be one IAM role');
      expect(left).toEqual([]);
    },
    120_000,
  );
});
