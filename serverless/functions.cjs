// The functions behind HTTP, built from the route table (lib/api/endpoints.ts): each operation and
// each page becomes a function of the same name, its handler functions/<kebab-name>.handler, its role
// <Name>Role (serverless/stack.cjs, from serverless/permissions.cjs), its memory and its routes. So
// serverless.yml writes no route itself, and a new endpoint is deployed by its entry in the table.

const { join } = require('node:path');
const { require: requireTypeScript } = require('tsx/cjs/api');

/** npm start's and the tests' stages: the only ones with the local pages (the API reference). */
const PAGE_STAGES = ['local', 'test'];
const DEFAULT_MEMORY_MB = 512;

const kebab = (name) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
const capitalized = (name) => name[0].toUpperCase() + name.slice(1);

/** "GET /path" as serverless's httpApi event; "*" as the catch-all. */
const httpEvent = (route) => {
  if (route === '*') return { httpApi: '*' };
  const [method, path] = route.split(' ');
  return { httpApi: { method, path } };
};

/**
 * One function. Its role is named with !Sub: named by its logical id or !GetAtt, the framework also
 * writes a DependsOn that the reference already implies (cfn-lint W3005). A local page runs with
 * the framework's default role: it is never deployed.
 */
function lambdaFunction(name, { description, memorySize, routes, localOnly }, extra) {
  return {
    ...(localOnly ? {} : { role: { 'Fn::Sub': `\${${capitalized(name)}Role.Arn}` } }),
    handler: `functions/${kebab(name)}.handler`,
    description,
    memorySize: memorySize ?? DEFAULT_MEMORY_MB,
    ...extra,
    events: routes === '*' ? [httpEvent('*')] : routes.map(httpEvent),
  };
}

/** The route table's functions for a stage, as serverless.yml's functions take them. */
function httpFunctions(stage, parameters) {
  const { endpoints, pages } = requireTypeScript(join(__dirname, '../lib/api/endpoints.ts'), __filename);
  const functions = {};
  for (const [name, endpoint] of Object.entries(endpoints)) {
    const route = `${endpoint.method} ${endpoint.path}`;
    // Registration's own share of the account's concurrency and no more: a flood of registrations
    // (each about 0.3 s of CPU) cannot take the concurrency every other function needs.
    const extra = name === 'userRegister' ? { reservedConcurrency: Number(parameters.REGISTER_RESERVED_CONCURRENCY) } : {};
    functions[name] = lambdaFunction(name, { description: route, memorySize: endpoint.memorySize, routes: [route] }, extra);
  }
  for (const [name, page] of Object.entries(pages)) {
    if (page.localOnly && !PAGE_STAGES.includes(stage)) continue;
    functions[name] = lambdaFunction(name, page, {});
  }
  return functions;
}

module.exports = async ({ resolveConfigurationProperty }) => {
  const stage = await resolveConfigurationProperty(['custom', 'stage']);
  const parameters = await resolveConfigurationProperty(['custom', 'parameters']);
  return httpFunctions(stage, parameters);
};
module.exports.httpFunctions = httpFunctions;
