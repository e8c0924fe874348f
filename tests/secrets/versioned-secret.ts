import { randomBytes } from 'node:crypto';
import type { SecretSource, SecretVersion } from '../../lib/secrets/server-keys.js';

/** A secret source with versions 1..n held in memory, counting what it is asked: as SSM would be. */
interface VersionedSecret extends SecretSource {
  /** Every read, in order: "current", or the version asked for. */
  reads: (number | 'current')[];
  /** Versions asked for by number (what would each be an SSM GetParameter name:version). */
  versionReads(): number[];
  /** A new current version (as put-parameter --overwrite); returns its number. */
  rotate(): number;
  /** Forgets a version, as if SSM no longer held it. */
  drop(version: number): void;
}

export function versionedSecret(versions = 1): VersionedSecret {
  const secrets = new Map<number, Buffer>();
  let latest = 0;
  const source: VersionedSecret = {
    reads: [],
    versionReads: () => source.reads.filter((read): read is number => read !== 'current'),
    rotate: () => {
      secrets.set(++latest, randomBytes(32));
      return latest;
    },
    drop: (version) => secrets.delete(version),
    current: async (): Promise<SecretVersion> => {
      source.reads.push('current');
      return { version: latest, secret: secrets.get(latest)! };
    },
    version: async (version) => {
      source.reads.push(version);
      const secret = secrets.get(version);
      return secret && { version, secret };
    },
  };
  for (let index = 0; index < versions; index++) source.rotate();
  return source;
}
