import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { hashPassword, hashPin, PASSWORD_SCRYPT, PIN_SCRYPT } from '../../lib/secrets/hashing.js';
import type { ServerKeys } from '../../lib/secrets/server-keys.js';
import { median, round } from './stats.js';

// Password and PIN hashing, measured on its own; and, for the bench only, a way to run
// registrations at a tiny scrypt cost so that hundreds of them fit in the time budget. The
// service's code is untouched: the bench swaps node:crypto's scrypt in its own process.

/** The cost the bench injects while it measures registration's non-hashing path. */
const BENCH_ONLY_SCRYPT = { N: 2 ** 10, r: 8, p: 1 };

const realScrypt = crypto.scrypt;

export function useBenchOnlyScrypt(enabled: boolean): void {
  crypto.scrypt = enabled
    ? (((secret: crypto.BinaryLike, salt: crypto.BinaryLike, keyLength: number, options: crypto.ScryptOptions, callback: never) =>
        realScrypt(secret, salt, keyLength, { ...options, ...BENCH_ONLY_SCRYPT }, callback)) as typeof crypto.scrypt)
    : realScrypt;
  // ESM named imports of a built-in (the service's `import { scrypt }`) follow only after this.
  syncBuiltinESMExports();
}

/** OWASP Password Storage Cheat Sheet scrypt settings: equal work, memory traded for parallelism. */
const OWASP_SCRYPT_SETTINGS = [
  { N: 2 ** 17, r: 8, p: 1 },
  { N: 2 ** 16, r: 8, p: 2 },
  { N: 2 ** 15, r: 8, p: 3 },
  { N: 2 ** 14, r: 8, p: 5 },
  { N: 2 ** 13, r: 8, p: 10 },
];

/** Cheaper scrypt settings a PIN could use (docs/security.md weighs them against the pepper). */
const PIN_SCRYPT_CANDIDATES = [
  { N: 2 ** 10, r: 8, p: 1 },
  { N: 2 ** 12, r: 8, p: 1 },
  { N: 2 ** 14, r: 8, p: 1 },
  { N: 2 ** 15, r: 8, p: 3 },
];

interface Candidate {
  N: number;
  r: number;
  p: number;
  memoryMiB: number;
  medianMs: number;
}

export interface HashTimings {
  /** OWASP's password settings. */
  candidates: Candidate[];
  /** Settings a PIN could use, with the CPU time of one hash and what exhausting a PIN space costs. */
  pinCandidates: (Candidate & { secondsPer4DigitPin: number; hoursPer6DigitPin: number })[];
  password: { N: number; r: number; p: number };
  pin: { N: number; r: number; p: number };
  passwordMs: number;
  pinMs: number;
  /** Registration hashes the password and both PINs side by side. */
  registrationMs: number;
  /** CPU time of those three hashes: what a single-vCPU function needs for them. */
  registrationCpuMs: number;
  runs: number;
}

function scryptOnce(options: { N: number; r: number; p: number }): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) =>
    realScrypt('correct horse battery', crypto.randomBytes(16), 32, { ...options, maxmem: 256 * 1024 * 1024 }, (error) =>
      error ? reject(error) : resolve(performance.now() - start),
    ),
  );
}

async function timed(work: () => Promise<unknown>): Promise<{ ms: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - start, cpuMs: (used.user + used.system) / 1000 };
}

async function timeSettings(settings: { N: number; r: number; p: number }[]): Promise<Candidate[]> {
  const candidates = [];
  for (const setting of settings) {
    const times = [];
    for (let run = 0; run < 3; run++) times.push(await scryptOnce(setting));
    candidates.push({ ...setting, memoryMiB: (128 * setting.N * setting.r) / 2 ** 20, medianMs: round(median(times)) });
  }
  return candidates;
}

export async function measureHashing(keys: ServerKeys, runs: number): Promise<HashTimings> {
  const candidates = await timeSettings(OWASP_SCRYPT_SETTINGS);
  const pinCandidates = (await timeSettings(PIN_SCRYPT_CANDIDATES)).map((candidate) => ({
    ...candidate,
    // A thief holding the table and the pepper tries every PIN of one user, on one core.
    secondsPer4DigitPin: round((1e4 * candidate.medianMs) / 1000, 1),
    hoursPer6DigitPin: round((1e6 * candidate.medianMs) / 3.6e6, 1),
  }));
  const password = [];
  const pin = [];
  const trio = [];
  for (let run = 0; run < runs; run++) {
    password.push((await timed(() => hashPassword('correct horse battery', PASSWORD_SCRYPT))).ms);
    pin.push((await timed(() => hashPin(keys, '2580', PIN_SCRYPT))).ms);
    trio.push(
      await timed(() =>
        Promise.all([
          hashPassword('correct horse battery', PASSWORD_SCRYPT),
          hashPin(keys, '2580', PIN_SCRYPT),
          hashPin(keys, '1397', PIN_SCRYPT),
        ]),
      ),
    );
  }
  return {
    candidates,
    pinCandidates,
    password: PASSWORD_SCRYPT,
    pin: PIN_SCRYPT,
    passwordMs: round(median(password)),
    pinMs: round(median(pin)),
    registrationMs: round(median(trio.map((t) => t.ms))),
    registrationCpuMs: round(median(trio.map((t) => t.cpuMs))),
    runs,
  };
}
