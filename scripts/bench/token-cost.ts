import { createRequire } from 'node:module';
import { endpoints } from '../../lib/api/endpoints.js';
import type { App } from '../../lib/app-context.js';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../../lib/config.js';
import { configuredKeySet, newKeySet, publicKeySet, SigningKeys } from '../../lib/secrets/signing-keys.js';
import { type AccessClaims, signAccessToken, verifyAccessToken } from '../../lib/sessions/jwt.js';
import { PRICES } from './prices.js';
import { table } from './report.js';
import { median, round } from './stats.js';

// The access token's signature, measured on its own (API contract 3.12, issue 29): signing
// (signAccessToken, at every login and refresh) and the check every call with a token makes
// before its one session read (verifyAccessToken), both with jose as the service runs them, one
// call at a time, in batches, for each algorithm a stage may sign with (ES256, RS256: contract 3.12
// amended); and what a container pays once to read and import its keys.

export interface TokenOperationCost {
  operation: string;
  calls: number;
  /** Median over the batches of wall time per call, in microseconds. */
  usPerCall: number;
  /** The same for CPU time (all threads: WebCrypto signs and verifies on libuv's pool). */
  cpuUsPerCall: number;
  /** Lambda time of 1,000 calls: their CPU time at a 512 MB function's share of a vCPU (most token readers have 512 MB). */
  lambdaMsPer1000At512Mb: number;
  /** What that time costs per million calls (GB-seconds only). */
  lambdaDollarsPerMillionAt512Mb: number;
}

/** The memory most functions that read a token have (serverless.yml): the Lambda figures are for it. */
export const TOKEN_FUNCTION_MEMORY_MB = 512;

export interface AccessTokenCost {
  algorithm: SigningAlgorithm;
  keys: string;
  library: string;
  tokenBytes: number;
  batches: number;
  operations: TokenOperationCost[];
  /** A container's first signing and first check: its key set read and imported (median of fresh key holders), in ms. */
  firstSignMs: number;
  firstVerifyMs: number;
  /** What the signing costs a million logins (one access token each), at the login functions' memory (GB-seconds only). */
  signingDollarsPerMillionLogins: number;
}

/** The memory of the functions that answer a login (verify_otp, login_pin): a login's signing is priced at it. */
export const LOGIN_FUNCTION_MEMORY_MB = Math.max(endpoints.verifyOtp.memorySize ?? 512, endpoints.loginPin.memorySize ?? 512);

const KEY_NAMES: Record<SigningAlgorithm, string> = { ES256: 'P-256, SHA-256', RS256: 'RSA 2048, e=65537, SHA-256' };

/** Lambda time of 1,000 calls of `cpuUs` each at a function of `memoryMb`, and what a million of them cost (GB-seconds only). */
function lambdaCost(cpuUs: number, memoryMb: number) {
  // 1,000 calls of cpuUs microseconds of CPU are cpuUs ms of CPU, stretched to the share of a vCPU.
  const msPer1000 = cpuUs / Math.min(1, memoryMb / PRICES.mbPerVcpu);
  // A million calls take msPer1000 seconds (x 1,000 calls, / 1,000 ms).
  return { msPer1000, dollarsPerMillion: msPer1000 * (memoryMb / 1024) * PRICES.lambdaArmPerGbSecond };
}

const CLAIMS: AccessClaims = {
  companyId: 'bench-company',
  userId: '0123456789abcdef0123456789abcdef',
  sessionId: 'fedcba9876543210fedcba9876543210',
  userType: 2,
  began: 'otp',
  acr: 'sms',
  authTime: 1_700_000_000,
};

/** The token with one signature byte changed: still well-formed, refused by the signature alone. */
function forged(token: string): string {
  const signatureAt = token.lastIndexOf('.') + 1;
  const flipped = token[signatureAt + 5] === 'A' ? 'B' : 'A';
  return `${token.slice(0, signatureAt + 5)}${flipped}${token.slice(signatureAt + 6)}`;
}

async function timeBatches(operation: string, calls: number, batches: number, call: (index: number) => Promise<unknown>) {
  const perBatch = Math.max(1, Math.floor(calls / batches));
  for (let index = 0; index < Math.min(perBatch, 50); index++) await call(index);
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let batch = 0; batch < batches; batch++) {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    for (let index = 0; index < perBatch; index++) await call(batch * perBatch + index);
    wall.push(((performance.now() - start) * 1000) / perBatch);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / perBatch);
  }
  const [usPerCall, cpuUsPerCall] = [median(wall), median(cpu)];
  const { msPer1000: lambdaMsPer1000, dollarsPerMillion } = lambdaCost(cpuUsPerCall, TOKEN_FUNCTION_MEMORY_MB);
  return {
    operation,
    calls: perBatch * batches,
    usPerCall: round(usPerCall, 1),
    cpuUsPerCall: round(cpuUsPerCall, 1),
    lambdaMsPer1000At512Mb: round(lambdaMsPer1000, 1),
    lambdaDollarsPerMillionAt512Mb: round(dollarsPerMillion, 3),
  };
}

type TokenParts = Pick<App, 'config' | 'clock' | 'signingKeys'>;

/** Median ms of `runs` first calls, each on a fresh key holder reading the app's configured key set. */
async function firstUse(app: TokenParts, runs: number, use: (keys: TokenParts) => Promise<unknown>) {
  const text = app.config.signingKeys;
  if (!text) throw new Error('the bench app has no SIGNING_KEYS');
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const source = configuredKeySet(text);
    const signingKeys = new SigningKeys(
      { private: source, public: async () => publicKeySet(await source()) },
      app.config.accessTokenTtlSeconds,
      app.clock,
    );
    const start = performance.now();
    await use({ config: app.config, clock: app.clock, signingKeys });
    times.push(performance.now() - start);
  }
  return round(median(times), 3);
}

/** The app's token parts over a fresh key set of `alg` (in SIGNING_KEYS, as the tests' and the bench's stages hold theirs). */
function partsSigningWith(app: Pick<App, 'config' | 'clock'>, alg: SigningAlgorithm): TokenParts {
  const text = JSON.stringify(newKeySet(0, alg));
  const config = { ...app.config, signingKeys: text, accessTokenAlg: alg };
  const source = configuredKeySet(text);
  const signingKeys = new SigningKeys(
    { private: source, public: async () => publicKeySet(await source()) },
    config.accessTokenTtlSeconds,
    app.clock,
  );
  return { config, clock: app.clock, signingKeys };
}

/** Each algorithm's cost, ES256 then RS256, on the app's configuration and clock. */
export async function measureAccessTokenAlgorithms(
  app: Pick<App, 'config' | 'clock'>,
  calls: number,
  batches = 10,
): Promise<AccessTokenCost[]> {
  const costs: AccessTokenCost[] = [];
  for (const alg of SIGNING_ALGORITHMS) costs.push(await measureAccessTokens(partsSigningWith(app, alg), calls, batches));
  return costs;
}

async function measureAccessTokens(app: TokenParts, calls: number, batches: number): Promise<AccessTokenCost> {
  const sessionEndsAt = Math.floor(app.clock.now() / 1000) + 3600;
  const sign = () => signAccessToken(app, CLAIMS, sessionEndsAt).then(({ token }) => token);
  // Distinct tokens, as distinct callers send: nothing may be cached between checks.
  const tokens = await Promise.all(Array.from({ length: 100 }, sign));
  const check = async (token: string, expected: boolean) => {
    const claims = await verifyAccessToken(app, CLAIMS.companyId, token);
    if ((claims !== undefined) !== expected) throw new Error(`the bench's token was ${expected ? 'refused' : 'accepted'}`);
  };
  const operations = [
    await timeBatches('sign (signAccessToken)', calls, batches, sign),
    await timeBatches('verify, valid (verifyAccessToken)', calls, batches, (index) => check(tokens[index % tokens.length]!, true)),
    await timeBatches('verify, signature altered (refused)', calls, batches, (index) =>
      check(forged(tokens[index % tokens.length]!), false),
    ),
  ];
  const token = tokens[0]!;
  const signCpuUs = operations[0]!.cpuUsPerCall;
  return {
    algorithm: app.config.accessTokenAlg,
    keys: KEY_NAMES[app.config.accessTokenAlg],
    library: `jose ${createRequire(import.meta.url)('jose/package.json').version}`,
    tokenBytes: Buffer.byteLength(token),
    batches,
    operations,
    firstSignMs: await firstUse(app, 20, (keys) => signAccessToken(keys, CLAIMS, sessionEndsAt)),
    firstVerifyMs: await firstUse(app, 20, (keys) => verifyAccessToken(keys, CLAIMS.companyId, token)),
    signingDollarsPerMillionLogins: round(lambdaCost(signCpuUs, LOGIN_FUNCTION_MEMORY_MB).dollarsPerMillion, 4),
  };
}

/** The bench's report of access tokens: each algorithm's table, its first use, and what a million logins' signing costs. */
export function describeAccessTokens(costs: AccessTokenCost[]): string {
  const first = costs[0]!;
  const lines = [
    `Access tokens with ${first.library}, one call at a time, median of ${first.batches} batches, for each algorithm a stage may sign with (ACCESS_TOKEN_ALG)`,
    table(
      [
        'alg',
        'operation',
        'calls',
        'µs per call',
        'CPU µs per call',
        `Lambda ms per 1000 at ${TOKEN_FUNCTION_MEMORY_MB} MB`,
        `$ per 1M at ${TOKEN_FUNCTION_MEMORY_MB} MB`,
      ],
      costs.flatMap((cost) =>
        cost.operations.map((entry) => [
          cost.algorithm,
          entry.operation,
          entry.calls,
          entry.usPerCall,
          entry.cpuUsPerCall,
          entry.lambdaMsPer1000At512Mb,
          entry.lambdaDollarsPerMillionAt512Mb,
        ]),
      ),
    ),
    table(
      ['alg', 'keys', 'token bytes', 'first signing ms', 'first check ms', `signing, $ per 1M logins at ${LOGIN_FUNCTION_MEMORY_MB} MB`],
      costs.map((cost) => [
        cost.algorithm,
        cost.keys,
        cost.tokenBytes,
        cost.firstSignMs,
        cost.firstVerifyMs,
        cost.signingDollarsPerMillionLogins,
      ]),
    ),
    `First signing and check: a container's key set read and imported (again every 5 minutes). Lambda ms: CPU time at the function's share of a vCPU;` +
      `\na login signs one access token, in verify_otp or login_pin (${LOGIN_FUNCTION_MEMORY_MB} MB); a call with a token checks one, at ${TOKEN_FUNCTION_MEMORY_MB} MB in most functions.\n`,
  ];
  return lines.join('\n');
}
