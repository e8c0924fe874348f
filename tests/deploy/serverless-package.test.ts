import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../lib/api/endpoints.js';
import { TTL_ATTRIBUTE, tableDefinition } from '../../lib/store/table-definition.js';

const root = resolve(import.meta.dirname, '../..');
type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };
let resources: Record<string, Resource>;
let outDir: string;

// `serverless package` must work offline, with no AWS credentials at all.
beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'wallet-package-'));
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')));
  await promisify(execFile)(
    process.execPath,
    ['node_modules/serverless/bin/serverless.js', 'package', '--stage', 'ci', '--package', outDir],
    {
      cwd: root,
      env: { ...env, HOME: mkdtempSync(join(tmpdir(), 'wallet-home-')), ESBUILD_WORK_FOLDER: '.esbuild-test-package' },
    },
  );
  rmSync(join(root, '.esbuild-test-package'), { recursive: true, force: true });
  const template = JSON.parse(readFileSync(join(outDir, 'cloudformation-template-update-stack.json'), 'utf8'));
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

  it('limits IAM to the table and its indexes, and SNS to SMS', () => {
    const [role] = ofType('AWS::IAM::Role');
    const statements = role!.Properties.Policies.flatMap((policy: any) => policy.PolicyDocument.Statement);
    const dynamo = statements.filter((statement: any) => statement.Action.some((action: string) => action.startsWith('dynamodb:')));
    expect(dynamo).toHaveLength(1);
    expect(dynamo[0].Action).not.toContain('dynamodb:*');
    expect(dynamo[0].Action).not.toContain('dynamodb:Scan');
    expect(dynamo[0].Resource).toEqual([
      { 'Fn::GetAtt': ['WalletTable', 'Arn'] },
      { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['WalletTable', 'Arn'] }, '/index/*']] },
    ]);
    const sns = statements.filter((statement: any) => statement.Action.some((action: string) => action.startsWith('sns:')));
    expect(sns).toEqual([{ Effect: 'Allow', Action: ['sns:Publish'], NotResource: 'arn:aws:sns:*:*:*' }]);
    expect(
      statements.some((statement: any) => statement.Resource === '*' && statement.Action.some((a: string) => !a.startsWith('logs:'))),
    ).toBe(false);
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
