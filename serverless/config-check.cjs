// Every function's environment as packaged, read by lib/config.ts's own rules before anything is
// built: a setting a function would refuse at its first call (a security limit past its bound on a
// deployed stage, a malformed number) refuses to package, naming each problem. One home for each
// rule: this file only hands the environment over.

const { join } = require('node:path');
const { require: requireTypeScript } = require('tsx/cjs/api');

/** A value CloudFormation fills in at deploy (the SMS queue's URL, the API's URL) stands as set: a URL where one is asked. */
const AT_DEPLOY = { TOKEN_ISSUER: 'https://api.set-at-deploy.example' };
const asVariable = (key, value) =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : (AT_DEPLOY[key] ?? 'set at deploy');

module.exports = async ({ resolveConfigurationProperty }) => {
  const stage = await resolveConfigurationProperty(['custom', 'stage']);
  const shared = (await resolveConfigurationProperty(['provider', 'environment'])) ?? {};
  const functions = (await resolveConfigurationProperty(['functions'])) ?? [];
  const { readConfig, ConfigError } = requireTypeScript(join(__dirname, '../lib/config.ts'), __filename);
  const entries = (Array.isArray(functions) ? functions : [functions]).filter((entry) => entry && typeof entry === 'object');
  const named = entries.flatMap((entry) => Object.entries(entry));
  /** Each problem, with the functions that have it: most settings are every function's. */
  const problems = new Map();
  for (const [name, fn] of named) {
    const environment = Object.fromEntries(
      Object.entries({ ...shared, ...(fn?.environment ?? {}) }).map(([key, value]) => [key, asVariable(key, value)]),
    );
    try {
      readConfig(environment);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const problem of error.problems) problems.set(problem, [...(problems.get(problem) ?? []), name]);
    }
  }
  if (problems.size) {
    const lines = [...problems].map(
      ([problem, names]) => `${problem} (${names.length === named.length ? 'every function' : names.join(', ')})`,
    );
    const error = new Error(`stage "${stage}": lib/config.ts refuses the functions' settings:\n  ${lines.join('\n  ')}`);
    // Serverless prints the stack of an error thrown here: the message says all there is.
    error.stack = error.message;
    throw error;
  }
  return true;
};
