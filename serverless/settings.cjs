// lib/settings.ts, the one declaration of every setting, as the deploy's .cjs files read it.

const { join } = require('node:path');
const { require: requireTypeScript } = require('tsx/cjs/api');

const { SETTINGS, STAND_IN_SETTINGS } = requireTypeScript(join(__dirname, '../lib/settings.ts'), __filename);

const sourceOf = (setting) => setting.source ?? 'operator';
/** The shell's value of a setting, trimmed; undefined when unset or blank. */
const fromShell = (name) => {
  const value = (process.env[name] ?? '').trim();
  return value === '' ? undefined : value;
};

module.exports = { SETTINGS, STAND_IN_SETTINGS, sourceOf, fromShell };
