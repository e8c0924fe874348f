import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../lib/api/endpoints.js';
import { TTL_ATTRIBUTE, tableDefinition } from '../../lib/store/table-definition.js';

const root = resolve(import.meta.dirname, '../..');
type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string; Condition?: string };
type Statement = { Effect: string; Action: string[]; Resource?: unknown; NotResource?: unknown; Condition?: unknown };
let template: { Resources: Record<string, Resource>; Conditions: Record<string, unknown> };
let resources: Record<string, Resource>;
let packagedText: string;
let outDir: string;
const permissions = createRequire(import.meta.url)('../../serverless/permissions.cjs') as Record<
  string,
  { table?: string[]; secret?: boolean }
>;
/** Set while packaging: it must reach no template and no function. */
const SECRET_IN_ENVIRONMENT = `canary-${'7f'.repeat(24)}`;

const roleIds = () => Object.keys(resources).filter((id) => resources[id]!.Type === 'AWS::IAM::Role');
const statementsOf = (roleId: string): Statement[] =>
  resources[roleId]!.Properties.Policies.flatMap((policy: any) => policy.PolicyDocument.Statement);
const allStatements = () => roleIds().flatMap(statementsOf);

// `serverless package` must work offline, with no AWS credentials at all.
beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'wallet-package-'));
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')));
  await promisify(execFile)(
    process.execPath,
    ['node_modules/serverless/bin/serverless.js', 'package', '--stage', 'ci', '--package', outDir],
    {
      cwd: root,
      env: {
        ...env,
        SERVER_SECRET: SECRET_IN_ENVIRONMENT,
        HOME: mkdtempSync(join(tmpdir(), 'wallet-home-')),
        ESBUILD_WORK_FOLDER: '.esbuild-test-package',
      },
    },
  );
  rmSync(join(root, '.esbuild-test-package'), { recursive: true, force: true });
  packagedText = readdirSync(outDir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => readFileSync(join(outDir, name), 'utf8'))
    .join('\n');
  template = JSON.parse(readFileSync(join(outDir, 'cloudformation-template-update-stack.json'), 'utf8'));
  resources = template.Resources;
}, 180_000);

const ofType = (type: string) => Object.values(resources).filter((resource) => resource.Type === type);

describe('the packaged CloudFormation', () => {
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
  });

  it('routes exactly the documented operations and a catch-all on an HTTP API', () => {
    const routes = ofType('AWS::ApiGatewayV2::Route')
      .map((route) => route.Properties.RouteKey)
      .sort();
    const documented = endpoints.map((endpoint) => `${endpoint.method} ${endpoint.path}`);
    expect(routes).toEqual(['$default', ...documented].sort());
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
    expect(functions.length).toBeGreaterThanOrEqual(2);
    for (const fn of functions) {
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
    }
  });

  it('gives each function a role of its own, with the actions of serverless/permissions.cjs on the table only', () => {
    const functions = Object.entries(resources).filter(([, resource]) => resource.Type === 'AWS::Lambda::Function');
    expect(functions.map(([id]) => id.replace(/LambdaFunction$/, '')).sort()).toEqual(
      Object.keys(permissions)
        .map((name) => name[0]!.toUpperCase() + name.slice(1))
        .sort(),
    );
    for (const [id, fn] of functions) {
      const roleId = id.replace(/LambdaFunction$/, 'Role');
      expect(fn.Properties.Role).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
      const name = roleId[0]!.toLowerCase() + roleId.slice(1, -'Role'.length);
      const table = statementsOf(roleId).filter(
        (statement) => statement.Action.some((action) => action.startsWith('dynamodb:')) && !statement.Condition,
      );
      const granted = permissions[name]!.table ?? [];
      expect(table.flatMap((statement) => statement.Action).sort(), name).toEqual(granted.map((action) => `dynamodb:${action}`).sort());
      for (const statement of table) expect(statement.Resource).toEqual({ 'Fn::GetAtt': ['WalletTable', 'Arn'] });
    }
    // No role may do anything to every resource but write its own log stream.
    const everything = allStatements().filter(
      (statement) => statement.Resource === '*' || JSON.stringify(statement.Resource ?? '').includes(':*:*:*'),
    );
    expect(everything).toEqual([]);
    expect(allStatements().flatMap((statement) => statement.Action)).not.toContain('dynamodb:Scan');
    expect(ofType('AWS::IAM::Role')).toHaveLength(Object.keys(permissions).length);
  });

  it('lets only login_phone publish SMS, and only to phone numbers', () => {
    const publishers = roleIds().filter((roleId) => statementsOf(roleId).some((statement) => statement.Action.includes('sns:Publish')));
    expect(publishers).toEqual(['LoginPhoneRole']);
    expect(statementsOf('LoginPhoneRole').filter((statement) => statement.Action.includes('sns:Publish'))).toEqual([
      { Effect: 'Allow', Action: ['sns:Publish'], NotResource: 'arn:aws:sns:*:*:*' },
    ]);
  });

  it('lets referral_program read, and write nothing but the last use of a session', () => {
    const actions = statementsOf('ReferralProgramRole').flatMap((statement) => statement.Action);
    expect(actions.filter((action) => action.startsWith('dynamodb:')).sort()).toEqual([
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    const [update] = statementsOf('ReferralProgramRole').filter((statement) => statement.Action.includes('dynamodb:UpdateItem'));
    expect(update!.Condition).toEqual({
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'last_used_at'] },
      StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
    });
  });

  it('lets the functions that use the server secret read that one parameter, and nothing else of SSM', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's own ${} (Fn::Sub)
    const parameter = { 'Fn::Sub': 'arn:${AWS::Partition}:ssm:${AWS::Region}:${AWS::AccountId}:parameter/wallet-auth/ci/server-secret' };
    for (const roleId of roleIds()) {
      const ssm = statementsOf(roleId).filter((statement) => statement.Action.some((action) => action.startsWith('ssm:')));
      const name = roleId[0]!.toLowerCase() + roleId.slice(1, -'Role'.length);
      expect(ssm, roleId).toEqual(
        permissions[name]!.secret ? [{ Effect: 'Allow', Action: ['ssm:GetParameter'], Resource: parameter }] : [],
      );
    }
    for (const fn of ofType('AWS::Lambda::Function')) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        SERVER_SECRET_PARAMETER: '/wallet-auth/ci/server-secret',
        SERVER_SECRET_FILE: '',
      });
    }
  });

  it('holds no secret: packaged with SERVER_SECRET set, neither the template nor any function environment has it', () => {
    expect(packagedText).not.toContain(SECRET_IN_ENVIRONMENT);
    for (const fn of ofType('AWS::Lambda::Function'))
      expect(Object.keys(fn.Properties.Environment.Variables)).not.toContain('SERVER_SECRET');
  });

  it('reserves concurrency for registration, and only there', () => {
    const reserved = Object.entries(resources)
      .filter(([, resource]) => resource.Properties?.ReservedConcurrentExecutions !== undefined)
      .map(([id, resource]) => [id, resource.Properties.ReservedConcurrentExecutions]);
    expect(reserved).toEqual([['UserRegisterLambdaFunction', 20]]);
  });

  it('alarms on each function’s errors, throttles and duration near its timeout', () => {
    for (const roleId of roleIds()) {
      const fn = roleId.slice(0, -'Role'.length);
      const dimension = [{ Name: 'FunctionName', Value: { Ref: `${fn}LambdaFunction` } }];
      expect(resources[`${fn}ErrorsAlarm`]!.Properties).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: dimension,
        Threshold: 1,
      });
      expect(resources[`${fn}ThrottlesAlarm`]!.Properties).toMatchObject({ MetricName: 'Throttles', Dimensions: dimension });
      expect(resources[`${fn}DurationAlarm`]!.Properties).toMatchObject({ MetricName: 'Duration', Statistic: 'Maximum', Threshold: 8000 });
    }
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
    expect(alarms.length).toBe(3 * roleIds().length + 7);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: 'AlarmTopic' }]);
    // The e-mail subscriber is a deploy parameter: none given, none subscribed.
    expect(resources.AlarmEmailSubscription).toMatchObject({ Condition: 'HasAlarmEmail', Properties: { Protocol: 'email', Endpoint: '' } });
    expect(template.Conditions.HasAlarmEmail).toEqual({ 'Fn::Not': [{ 'Fn::Equals': ['', ''] }] });
  });

  it('bundles each function into one ESM file', () => {
    expect(statSync(join(outDir, 'userRegister.zip')).size).toBeGreaterThan(0);
    const [fn] = ofType('AWS::Lambda::Function').filter((resource) => resource.Properties.Handler === 'functions/user-register.handler');
    expect(fn).toBeDefined();
  });

  // Cold starts grow with the bundle: npm run bench measures them, this keeps the size in check.
  it('keeps every function zip under 500 KB', () => {
    const zips = readdirSync(outDir).filter((name) => name.endsWith('.zip'));
    expect(zips.length).toBe(ofType('AWS::Lambda::Function').length);
    for (const zip of zips) expect(statSync(join(outDir, zip)).size, zip).toBeLessThan(500 * 1024);
  });
});
