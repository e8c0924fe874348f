// npm run signing-key:rotate -- [--urgent] [--alg ES256|RS256]
// Adds a signing key for access tokens (API contract 3.12) and drops the keys no token still
// needs. The key is of --alg, else of the stage's ACCESS_TOKEN_ALG (ES256 unless set): a rotation
// to the other algorithm is how a stage moves, the JWKS listing both until the old key's tokens expired. The new key is published at once and signs NEW_KEY_LEAD_SECONDS later (10 minutes), when
// every container and every verifier's cached JWKS has it; --urgent (a key thought leaked) makes it
// sign at once and drops every other key, so tokens they signed stop verifying. Locally it rewrites .data/signing-keys.json; on a deployed stage the two SSM
// parameters (the private set, a SecureString, and its public half). Prints {"kid", "alg", "signs_from",
// "published", "dropped"} as its last line. The private key is never printed.
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { GetParameterCommand, ParameterNotFound, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { awsClient } from '../lib/aws/clients.js';
import { type Config, readConfig, SIGNING_ALGORITHMS, type SigningAlgorithm } from '../lib/config.js';
import { parseKeySet, publicKeySet, rotateKeySet, type StoredKeySet } from '../lib/secrets/signing-keys.js';
import { type OperatorIo, runIfMain } from './operator-app.js';

/** Where the key set is kept: read it (undefined: none yet), write it. */
interface KeySetStore {
  where: string;
  read(): Promise<StoredKeySet | undefined>;
  write(set: StoredKeySet): Promise<void>;
}

function fileStore(file: string): KeySetStore {
  return {
    where: file,
    read: async () => {
      const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      return text === undefined ? undefined : parseKeySet(text, file);
    },
    write: (set) => writeFile(file, JSON.stringify(set, null, 2), { mode: 0o600 }),
  };
}

function ssmStore(config: Config, privateName: string, publicName: string): KeySetStore {
  const ssm = awsClient(SSMClient, config, 'ssm');
  return {
    where: `SSM ${privateName} and ${publicName}`,
    read: async () => {
      try {
        const { Parameter } = await ssm.send(new GetParameterCommand({ Name: privateName, WithDecryption: true }));
        return parseKeySet(Parameter?.Value ?? '', privateName);
      } catch (error) {
        if (error instanceof ParameterNotFound) return undefined;
        throw error;
      }
    },
    write: async (set) => {
      // The private set first: a public set ahead of it only lists a key that does not sign yet.
      const publicSet = JSON.stringify(publicKeySet(set));
      await ssm.send(new PutParameterCommand({ Name: privateName, Value: JSON.stringify(set), Type: 'SecureString', Overwrite: true }));
      await ssm.send(new PutParameterCommand({ Name: publicName, Value: publicSet, Type: 'String', Overwrite: true }));
    },
  };
}

const USAGE = `usage: npm run signing-key:rotate -- [--urgent] [--alg ${SIGNING_ALGORITHMS.join('|')}]`;

export async function main(argv: string[], io: OperatorIo): Promise<number> {
  let urgent: boolean;
  let algOption: string | undefined;
  try {
    ({ urgent, alg: algOption } = parseArgs({
      args: argv,
      options: { urgent: { type: 'boolean', default: false }, alg: { type: 'string' } },
    }).values);
  } catch {
    io.err(USAGE);
    return 2;
  }
  if (algOption !== undefined && !(SIGNING_ALGORITHMS as readonly string[]).includes(algOption)) {
    io.err(`--alg must be one of ${SIGNING_ALGORITHMS.join(', ')}, not ${JSON.stringify(algOption)}\n${USAGE}`);
    return 2;
  }
  const config = readConfig(io.env);
  const alg = (algOption as SigningAlgorithm | undefined) ?? config.accessTokenAlg;
  if (config.signingKeys) {
    io.err('SIGNING_KEYS is set in this environment: that key set is not stored anywhere this command can rotate');
    return 2;
  }
  const store = config.signingKeysFile
    ? fileStore(config.signingKeysFile)
    : config.signingKeysParameter && config.signingPublicKeysParameter
      ? ssmStore(config, config.signingKeysParameter, config.signingPublicKeysParameter)
      : undefined;
  if (!store) {
    io.err('no signing key set is configured (SIGNING_KEYS_FILE or SIGNING_KEYS_PARAMETER)');
    return 2;
  }
  try {
    const now = Math.floor(Date.now() / 1000);
    const current = (await store.read()) ?? { keys: [] };
    // The first key of a stage signs at once: there is no older one to keep signing meanwhile.
    const rotation = rotateKeySet(current, now, config.accessTokenTtlSeconds, { urgent: urgent || current.keys.length === 0, alg });
    if (urgent && rotation.dropped.length) io.err('every token signed before now stops verifying within 300 s: apps refresh for a new one');
    await store.write(rotation.set);
    io.err(
      `${alg} key ${rotation.added.kid} added to ${store.where}; it signs from ${new Date(rotation.added.signs_from * 1000).toISOString()}` +
        (rotation.dropped.length ? `; dropped ${rotation.dropped.join(', ')}` : ''),
    );
    io.out(
      JSON.stringify({
        kid: rotation.added.kid,
        alg,
        signs_from: rotation.added.signs_from,
        published: rotation.set.keys.map(({ kid }) => kid),
        dropped: rotation.dropped,
      }),
    );
    return 0;
  } catch (error) {
    io.err(`could not rotate the signing key: ${(error as Error).message}`);
    return 1;
  }
}

await runIfMain(import.meta.url, main);
