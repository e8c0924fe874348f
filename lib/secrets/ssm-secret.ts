import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { Config } from '../config.js';
import { DUMMY_CREDENTIALS } from '../store/table.js';
import { type SecretSource, type SecretVersion, ServerSecretUnavailable, secretBytes } from './server-keys.js';

/**
 * The server secret in SSM Parameter Store, a SecureString: read on first use and kept by
 * ServerKeys for the container's life. A secret's version is the parameter's version, so a new
 * value (`aws ssm put-parameter --overwrite`) takes over for new hashes while anything that names
 * an older version is verified with it (read by `name:version`, SSM keeps the last 100).
 */
export function ssmSecret(config: Pick<Config, 'region' | 'dummyCredentials' | 'serverSecretParameter' | 'ssmEndpoint'>): SecretSource {
  const name = config.serverSecretParameter ?? '';
  let client: SSMClient | undefined;
  const read = async (selector: string): Promise<SecretVersion | undefined> => {
    client ??= new SSMClient({
      region: config.region,
      ...(config.ssmEndpoint ? { endpoint: config.ssmEndpoint } : {}),
      ...(config.dummyCredentials ? { credentials: DUMMY_CREDENTIALS } : {}),
      maxAttempts: 2,
      requestHandler: new NodeHttpHandler({ connectionTimeout: 1000, requestTimeout: 1000, throwOnRequestTimeout: true }),
    });
    try {
      const { Parameter } = await client.send(new GetParameterCommand({ Name: selector, WithDecryption: true }));
      if (!Parameter?.Value || !Parameter.Version) throw new ServerSecretUnavailable(`parameter ${name} has no value`);
      return { version: Parameter.Version, secret: secretBytes(Parameter.Value) };
    } catch (error) {
      if (error instanceof ServerSecretUnavailable) throw error;
      if ((error as Error).name === 'ParameterVersionNotFound') return undefined;
      throw new ServerSecretUnavailable(`cannot read parameter ${name}: ${(error as Error).name}`, { cause: error });
    }
  };
  return {
    current: async () => {
      const current = await read(name);
      if (!current) throw new ServerSecretUnavailable(`parameter ${name} has no current version`);
      return current;
    },
    version: (version) => read(`${name}:${version}`),
  };
}
