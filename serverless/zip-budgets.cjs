// What each function's zip may weigh: a cold start reads and compiles all of it. 250 KB, but for
// the passkey registration (API contract 3.16): @simplewebauthn/server verifies every attestation
// format, whose certificate chains it parses with @peculiar/x509 (and tsyringe, reflect-metadata),
// about 30 KB of zip more than an assertion's functions, which keep only the COSE and DER signature
// parsing (serverless/esbuild-plugins.cjs: passkeysLogin and stepUp about 237 KB; bench/results.json
// measures each one's cold init). Checked by tests/deploy/serverless-package.test.ts and npm run bench.

const ZIP_BUDGET_BYTES = 250 * 1024;
const WEBAUTHN_ZIP_BUDGET_BYTES = 300 * 1024;
const VERIFIES_WEBAUTHN = ['passkeysRegister'];

/** The most bytes the function's zip may hold. */
const zipBudgetBytes = (name) => (VERIFIES_WEBAUTHN.includes(name) ? WEBAUTHN_ZIP_BUDGET_BYTES : ZIP_BUDGET_BYTES);

module.exports = { ZIP_BUDGET_BYTES, WEBAUTHN_ZIP_BUDGET_BYTES, VERIFIES_WEBAUTHN, zipBudgetBytes };
