// npm run docs: writes the settings' tables of docs/configuration.md (every setting) and
// docs/security.md (the bounds on a deployed stage) from their one declaration, lib/settings.ts,
// between the pages' "settings" markers. tests/config.test.ts checks both are current.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type DeployedBounds, SETTINGS, type Setting, type SettingSource } from '../lib/settings.js';

export const CONFIGURATION_FILE = resolve(import.meta.dirname, '../docs/configuration.md');
export const SECURITY_FILE = resolve(import.meta.dirname, '../docs/security.md');

const BEGIN = '<!-- settings: written by npm run docs from lib/settings.ts -->';
const END = '<!-- /settings -->';

const SOURCE_TEXT: Record<SettingSource, string> = {
  operator: 'deployer',
  stack: 'the stack',
  'operator or stack': 'deployer, else the stack',
  'stand-in': 'local stages only',
  tests: 'tests and scripts',
  aws: 'AWS',
  parameter: 'deployer (deploy only)',
  start: '`npm start`',
};

const DAY = 86_400;
/** 2592000 as "2592000 (30 days)": the days a whole number of seconds makes, where it does. */
function valueText(name: string, value: number | string): string {
  if (value === '') return 'none';
  if (typeof value === 'number' && name.endsWith('_SECONDS') && value >= DAY && value % DAY === 0) {
    return `\`${value}\` (${value / DAY} day${value === DAY ? '' : 's'})`;
  }
  return `\`${value}\``;
}

function defaultText(name: string, setting: Setting): string {
  if (setting.defaultText) return setting.defaultText;
  return setting.default === undefined ? 'none' : valueText(name, setting.default);
}

function boundsText({ min, max, off }: DeployedBounds): string {
  const range = min !== undefined && max !== undefined ? `${min} to ${max}` : max !== undefined ? `at most ${max}` : `at least ${min}`;
  return off ? `0 (off) or ${range}` : range;
}

const row = (cells: string[]) => `| ${cells.join(' | ')} |`;

/** docs/configuration.md's table: every setting, in the declaration's order. */
export function renderSettingsTable(): string {
  const rows = Object.entries(SETTINGS as Record<string, Setting>).map(([name, setting]) =>
    row([
      `\`${name}\``,
      defaultText(name, setting),
      setting.deployed ? boundsText(setting.deployed) : '',
      SOURCE_TEXT[setting.source ?? 'operator'] + (setting.only ? ` (\`${setting.only}\` only)` : ''),
      setting.means,
    ]),
  );
  return [row(['variable', 'default', 'deployed stage', 'set by', 'meaning']), row(['---', '---', '---', '---', '---']), ...rows].join(
    '\n',
  );
}

/** docs/security.md's table: the bounds on a deployed stage, and why each. */
export function renderBoundsTable(): string {
  const rows = Object.entries(SETTINGS as Record<string, Setting>).flatMap(([name, setting]) =>
    setting.deployed ? [row([`\`${name}\``, defaultText(name, setting), boundsText(setting.deployed), setting.deployed.why])] : [],
  );
  return [row(['setting', 'default', 'deployed stage', 'why this bound']), row(['---', '---', '---', '---']), ...rows].join('\n');
}

/** A page with its settings section replaced. */
export function withSection(page: string, table: string): string {
  const begin = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  if (begin === -1 || end < begin) throw new Error(`no ${BEGIN} ... ${END} section`);
  return `${page.slice(0, begin + BEGIN.length)}\n${table}\n${page.slice(end)}`;
}

export const renderedPages = (): [string, string][] => [
  [CONFIGURATION_FILE, withSection(readFileSync(CONFIGURATION_FILE, 'utf8'), renderSettingsTable())],
  [SECURITY_FILE, withSection(readFileSync(SECURITY_FILE, 'utf8'), renderBoundsTable())],
];

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  for (const [file, text] of renderedPages()) writeFileSync(file, text);
  console.log(`wrote the settings of ${CONFIGURATION_FILE} and ${SECURITY_FILE}`);
}
