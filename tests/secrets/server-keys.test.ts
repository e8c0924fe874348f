// Which versions of the server secret ServerKeys asks its source for, with a counting source in
// memory: only versions from the current one back to SECRET_VERSIONS_KEPT - 1 older ones, each
// once while kept, and at most that many kept. A forged version (a cursor's) costs no read.
import { hkdfSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ServerKeys } from '../../lib/secrets/server-keys.js';
import { AdjustableClock } from '../harness/adjustable-clock.js';
import { versionedSecret } from './versioned-secret.js';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

describe('ServerKeys.atVersion', () => {
  it('refuses a version above the current one, or older than the oldest kept, without asking the source', async () => {
    const source = versionedSecret(12);
    const keys = new ServerKeys(source, { versionsKept: 10 });
    expect((await keys.current('cursor')).version).toBe(12);
    for (const version of [...range(13, 40), 2, 1, 0, -1, 2.5, Number.NaN, Number.MAX_SAFE_INTEGER]) {
      expect(await keys.atVersion('cursor', version), `version ${version}`).toBeUndefined();
    }
    expect(source.reads).toEqual(['current']);
    expect(keys.oldestKept(12)).toBe(3);
  });

  it('reads each kept older version once, and keeps it', async () => {
    const source = versionedSecret(12);
    const keys = new ServerKeys(source, { versionsKept: 10 });
    for (let round = 0; round < 3; round++) {
      for (const version of range(3, 12)) expect(await keys.atVersion('otp', version)).toBeInstanceOf(Buffer);
    }
    expect(source.versionReads()).toEqual(range(3, 11));
    expect(keys.cachedVersions).toHaveLength(9);
  });

  it('remembers a version the source no longer holds, and asks again after a failed read', async () => {
    const source = versionedSecret(5);
    source.drop(3);
    const keys = new ServerKeys(source);
    expect(await keys.atVersion('pin-pepper', 3)).toBeUndefined();
    expect(await keys.atVersion('pin-pepper', 3)).toBeUndefined();
    expect(source.versionReads()).toEqual([3]);

    const failing = { ...source, version: async () => Promise.reject(new Error('throttled')) };
    const flaky = new ServerKeys(failing);
    await expect(flaky.atVersion('pin-pepper', 4)).rejects.toThrow('throttled');
    expect(flaky.cachedVersions).toEqual([]);
  });

  it('keeps at most SECRET_VERSIONS_KEPT older versions however often the secret rotates, the least recently used out first', async () => {
    const source = versionedSecret(1);
    const clock = new AdjustableClock();
    const keys = new ServerKeys(source, { versionsKept: 3, clock });
    await keys.current('cursor');
    for (let rotation = 0; rotation < 12; rotation++) {
      const latest = source.rotate();
      clock.advance(61);
      for (const version of range(1, latest)) await keys.atVersion('cursor', version);
      expect(keys.cachedVersions.length).toBeLessThanOrEqual(3);
      expect(keys.cachedVersions.slice(-2)).toEqual([latest - 2, latest - 1].filter((version) => version > 0));
    }
  });

  it('meets a version made after it read the current one (another container, after a rotation): reads the current again, at most once a minute', async () => {
    const source = versionedSecret(1);
    const first = (await source.version(1))!.secret;
    source.reads.length = 0;
    const clock = new AdjustableClock();
    const keys = new ServerKeys(source, { clock });
    await keys.current('cursor');
    const second = source.rotate();
    // Within a minute of reading the current one, a newer version is refused unread.
    expect(await keys.atVersion('cursor', second)).toBeUndefined();
    expect(source.reads).toEqual(['current']);

    clock.advance(61);
    const found = await Promise.all(range(2, 21).map((version) => keys.atVersion('cursor', version)));
    expect(found[0]).toBeInstanceOf(Buffer);
    expect(found.slice(1).every((key) => key === undefined)).toBe(true);
    expect(source.reads).toEqual(['current', 'current']);
    // The container now makes new hashes under the new version, and still has the old one.
    expect((await keys.current('cursor')).version).toBe(2);
    expect(await keys.atVersion('cursor', 1)).toEqual(Buffer.from(hkdfSync('sha256', first, 'wallet-auth', 'cursor', 32)));
    expect(source.reads).toEqual(['current', 'current']);
  });
});
