// What each function's zip may weigh: a cold start reads and compiles all of it. 250 KB, but for
// the functions that verify a WebAuthn response (API contract 3.16): @simplewebauthn/server parses
// CBOR, COSE and DER signatures with @peculiar/asn1-* and asn1js, which add about 80 KB to a zip
// (passkeysLogin 268 KB against loginPin's 189 KB; bench/results.json measures each one's cold init).
// Checked by tests/deploy/serverless-package.test.ts and npm run bench.

const ZIP_BUDGET_BYTES = 250 * 1024;
const WEBAUTHN_ZIP_BUDGET_BYTES = 300 * 1024;
const VERIFIES_WEBAUTHN = ['passkeysLogin', 'passkeysRegister', 'stepUp'];

/** The most bytes the function's zip may hold. */
const zipBudgetBytes = (name) => (VERIFIES_WEBAUTHN.includes(name) ? WEBAUTHN_ZIP_BUDGET_BYTES : ZIP_BUDGET_BYTES);

module.exports = { ZIP_BUDGET_BYTES, WEBAUTHN_ZIP_BUDGET_BYTES, VERIFIES_WEBAUTHN, zipBudgetBytes };
