import { createRequire } from 'node:module';
import type { App } from '../../lib/app-context.js';
import { configuredKeySet, publicKeySet, SigningKeys } from '../../lib/secrets/signing-keys.js';
import { type AccessClaims, signAccessToken, verifyAccessToken } from '../../lib/sessions/jwt.js';
import { PRICES } from './prices.js';
import { median, round } from './stats.js';

// The access token's signature, measured on its own (API contract 3.12, issue 29): signing
// (signAccessToken, at every login and refresh) and the check every call with a token makes
// before its one session read (verifyAccessToken), both with jose and ES256 as the service runs
// them, one call at a time, in batches; and what a container pays once to read and import its keys.

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
  algorithm: string;
  library: string;
  tokenBytes: number;
  batches: number;
  operations: TokenOperationCost[];
  /** A container's first signing and first check: its key set read and imported (median of fresh key holders), in ms. */
  firstSignMs: number;
  firstVerifyMs: number;
}

const CLAIMS: AccessClaims = {
  companyId: 'bench-company',
  userId: '0123456789abcdef0123456789abcdef',
  sessionId: 'fedcba9876543210fedcba9876543210',
  userType: 2,
  began: 'otp',
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
  // 1,000 calls of cpuUsPerCall microseconds of CPU are cpuUsPerCall ms of CPU, stretched to the share of a vCPU.
  const lambdaMsPer1000 = cpuUsPerCall / Math.min(1, TOKEN_FUNCTION_MEMORY_MB / PRICES.mbPerVcpu);
  // A million calls take lambdaMsPer1000 seconds (x 1,000 calls, / 1,000 ms).
  const dollarsPerMillion = lambdaMsPer1000 * (TOKEN_FUNCTION_MEMORY_MB / 1024) * PRICES.lambdaArmPerGbSecond;
  return {
    operation,
    calls: perBatch * batches,
    usPerCall: round(usPerCall, 1),
    cpuUsPerCall: round(cpuUsPerCall, 1),
    lambdaMsPer1000At512Mb: round(lambdaMsPer1000, 1),
    lambdaDollarsPerMillionAt512Mb: round(dollarsPerMillion, 3),
  };
}

/** Median ms of `runs` first calls, each on a fresh key holder reading the app's configured key set. */
async function firstUse(app: App, runs: number, use: (keys: Pick<App, 'config' | 'clock' | 'signingKeys'>) => Promise<unknown>) {
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

export async function measureAccessTokens(app: App, calls: number, batches = 10): Promise<AccessTokenCost> {
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
  return {
    algorithm: 'ES256 (P-256, SHA-256)',
    library: `jose ${createRequire(import.meta.url)('jose/package.json').version}`,
    tokenBytes: Buffer.byteLength(token),
    batches,
    operations,
    firstSignMs: await firstUse(app, 20, (keys) => signAccessToken(keys, CLAIMS, sessionEndsAt)),
    firstVerifyMs: await firstUse(app, 20, (keys) => verifyAccessToken(keys, CLAIMS.companyId, token)),
  };
}
