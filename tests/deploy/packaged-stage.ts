import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { SharedPackage, SharedStage } from '../setup/shared-package.js';

export type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string; Condition?: string; DependsOn?: string[] };
export interface Template {
  Parameters?: Record<string, Record<string, unknown>>;
  Conditions: Record<string, unknown>;
  Resources: Record<string, Resource>;
}

/** The run's package of a stage (tests/setup/shared-package.ts), packaged by the first file that asks. */
export async function sharedPackage(stage: SharedStage): Promise<SharedPackage & { template: Template }> {
  const response = await fetch(`${inject('sharedPackageUrl')}/${stage}`);
  if (!response.ok) throw new Error(`packaging ${stage} failed: ${await response.text()}`);
  const shared = (await response.json()) as SharedPackage;
  const template = JSON.parse(readFileSync(join(shared.folder, 'cloudformation-template-update-stack.json'), 'utf8')) as Template;
  return { ...shared, template };
}
