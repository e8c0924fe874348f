// What a function's zip may weigh: a cold start reads and compiles all of it. 250 KB, every
// function: the passkey registration too, since the attestation formats it never reads are left out
// of its bundle (serverless/esbuild-plugins.cjs; it kept a 300 KB budget of its own for them before).
// Checked by tests/deploy/serverless-package.test.ts and npm run bench.

const ZIP_BUDGET_BYTES = 250 * 1024;

module.exports = { ZIP_BUDGET_BYTES };
