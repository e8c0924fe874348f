// The packaged prod template against the CloudFormation spec and its best practices: cfn-lint, when
// this machine has it (pip install cfn-lint). Our own resources may cause no finding at all;
// .cfnlintrc.yaml ignores only what the framework writes, and this test keeps it that narrow.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type Resource, sharedPackage } from './packaged-stage.js';

const root = resolve(import.meta.dirname, '../..');

interface Finding {
  Rule: { Id: string };
  Level: string;
  Message: string;
  Location: { Path: (string | number)[] };
}

/** cfn-lint's version, or the error that says it is not installed (any other failure is the test's). */
async function installedCfnLint(): Promise<{ version: string } | { absent: string }> {
  try {
    const { stdout } = await promisify(execFile)('cfn-lint', ['--version']);
    return { version: stdout.trim() };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { absent: (error as Error).message };
    throw error;
  }
}

/** cfn-lint's findings on a template, run from cwd (where it looks for .cfnlintrc.yaml), no user config. */
async function lint(template: string, cwd: string): Promise<Finding[]> {
  const home = mkdtempSync(join(tmpdir(), 'wallet-cfn-lint-home-'));
  try {
    const { stdout } = await promisify(execFile)('cfn-lint', ['--format', 'json', template], {
      cwd,
      env: { ...process.env, HOME: home },
    }).catch(
      // It exits non-zero when it finds anything: the findings are still its output.
      (error: { stdout?: string }) => {
        if (!error.stdout?.trim().startsWith('[')) throw error;
        return { stdout: error.stdout };
      },
    );
    return JSON.parse(stdout) as Finding[];
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const where = (finding: Finding) => `${finding.Rule.Id} ${finding.Location.Path.join('/')}: ${finding.Message}`;

/** The framework's own: a route's DependsOn on the integration its Target already names (osls, http-api.js). */
const frameworkWrote = (resources: Record<string, Resource>) => (finding: Finding) => {
  const [section, id, attribute] = finding.Location.Path;
  const route = resources[String(id)];
  if (finding.Rule.Id !== 'W3005' || section !== 'Resources' || attribute !== 'DependsOn' || route?.Type !== 'AWS::ApiGatewayV2::Route')
    return false;
  const [integration, ...more] = [route.DependsOn ?? []].flat();
  return (
    more.length === 0 &&
    /^HttpApiIntegration/.test(integration ?? '') &&
    JSON.stringify(route.Properties.Target).includes(`"${integration}"`)
  );
};

describe('the packaged prod template, linted', () => {
  it('has no cfn-lint error or warning of ours, and the repository’s settings ignore only the framework’s', async () => {
    const cfnLint = await installedCfnLint();
    if ('absent' in cfnLint) {
      // Said aloud, never skipped in silence: only a missing command (ENOENT) gets here.
      console.warn('cfn-lint not installed: template lint not run (pip install cfn-lint)');
      expect(cfnLint.absent).toMatch(/ENOENT/);
      return;
    }
    expect(cfnLint.version).toMatch(/^cfn-lint \d+\./);
    const prod = await sharedPackage('prod');
    const template = join(prod.folder, 'cloudformation-template-update-stack.json');
    // One run without .cfnlintrc.yaml (each run is about 20 s of CPU): what it finds is the
    // framework's alone, the file ignores those rules and no other, so with the file it finds nothing.
    const withoutSettings = await lint(template, prod.folder);
    const framework = frameworkWrote(prod.template.Resources);
    expect(withoutSettings.filter((finding) => !framework(finding)).map(where)).toEqual([]);
    const { ignore_checks } = parse(readFileSync(join(root, '.cfnlintrc.yaml'), 'utf8')) as { ignore_checks: string[] };
    expect([...new Set(withoutSettings.map((finding) => finding.Rule.Id))].sort()).toEqual([...ignore_checks].sort());
    expect(withoutSettings.filter((finding) => !ignore_checks.includes(finding.Rule.Id)).map(where)).toEqual([]);
  }, 240_000);
});
