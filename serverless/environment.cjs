// Every function's environment (provider.environment), from lib/settings.ts: each setting a function
// reads, by its source. The operator's from the deployer's shell, else the declared default; the
// stack's from serverless.yml's custom.stackSettings; a stand-in's from the local stages' shell
// (custom.localEndpoints), empty elsewhere. Settings for one function only (the events' publisher)
// are that function's, in serverless.yml; tests', AWS's and npm start's own are never passed.

const { SETTINGS, sourceOf, fromShell } = require('./settings.cjs');

/** Each source's value, given the local stand-ins' and the stack's. */
const VALUE_BY_SOURCE = {
  operator: (name, setting) => fromShell(name) ?? setting.default,
  stack: (name, _setting, stack) => stack[name],
  'operator or stack': (name, _setting, stack) => fromShell(name) ?? stack[name],
  'stand-in': () => '',
};

module.exports = async ({ resolveConfigurationProperty }) => {
  const local = (await resolveConfigurationProperty(['custom', 'localEndpoints'])) ?? {};
  const stack = (await resolveConfigurationProperty(['custom', 'stackSettings'])) ?? {};
  const environment = {};
  for (const [name, setting] of Object.entries(SETTINGS)) {
    const sourceValue = VALUE_BY_SOURCE[sourceOf(setting)];
    if (!sourceValue || setting.only) continue;
    const value = local[name] ?? sourceValue(name, setting, stack);
    if (value === undefined && sourceOf(setting) === 'stack') {
      throw new Error(`serverless.yml's custom.stackSettings gives no ${name} (lib/settings.ts: the stack sets it)`);
    }
    environment[name] = typeof value === 'number' ? String(value) : (value ?? '');
  }
  return environment;
};
