// The grants many functions' roles share, for serverless/stack.cjs: lib/api/grant-parts.ts, where
// the endpoints' modules take them from.
const { require: requireTypeScript } = require('tsx/cjs/api');

module.exports = requireTypeScript('../lib/api/grant-parts.ts', __filename);
