// The deploy's parameters (serverless.yml's custom.parameters): each setting of lib/settings.ts the
// deployer's shell gives (source "operator" or "parameter"), its value there or its declared default,
// a number where the default is one. serverless.yml reads them as ${self:custom.parameters.NAME}.

const { SETTINGS, sourceOf, fromShell } = require('./settings.cjs');

module.exports = () =>
  Object.fromEntries(
    Object.entries(SETTINGS)
      .filter(([, setting]) => ['operator', 'parameter'].includes(sourceOf(setting)))
      .map(([name, setting]) => {
        const value = fromShell(name) ?? setting.default ?? '';
        return [name, typeof setting.default === 'number' && /^-?\d+(\.\d+)?$/.test(String(value)) ? Number(value) : value];
      }),
  );
