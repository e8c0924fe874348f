import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import { type AwsConfig, awsClient } from '../aws/clients.js';
import { type Clock, systemClock } from '../clock.js';
import type { Config } from '../config.js';
import { type SecretSource, type SecretVersion, ServerSecretUnavailable, secretBytes } from './server-keys.js';

/** SSM throttling or failing, as the SDK classifies its error (not a missing parameter). */
function ssmStruggling(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const sdkError = error as Parameters<typeof isTransientError>[0] & { $fault?: string };
  return isThrottlingError(sdkError) || isTransientError(sdkError) || isServerError(sdkError) || sdkError.$fault === 'server';
}

/** How long a container answers a failed read of the secret with that failure before asking SSM again. */
export const FAILED_READ_HOLD_MS = 5000;

/**
 * The server secret in SSM Parameter Store, a SecureString: read on first use and kept by
 * ServerKeys for the container's life. A secret's version is the parameter's version, so a new
 * value (`aws ssm put-parameter --overwrite`) takes over for new hashes while anything that names
 * an older version is verified with it (read by `name:version`, SSM keeps the last 100).
 *
 * SSM answers about 40 GetParameter a second per account and region by default, and a ramp or a
 * redeploy starts containers faster than that: a throttled read is retried with the SDK's
 * backoff (a longer one for throttling), and a read that still fails is the answer for every
 * request of the container for FAILED_READ_HOLD_MS, so a struggling SSM is not asked once per
 * request (docs/scaling.md).
 */
export function ssmSecret(config: AwsConfig & Pick<Config, 'serverSecretParameter'>, clock: Clock = systemClock): SecretSource {
  const name = config.serverSecretParameter ?? '';
  let client: SSMClient | undefined;
  const failed = new Map<string, { error: unknown; until: number }>();
  const read = async (selector: string): Promise<SecretVersion | undefined> => {
    const held = failed.get(selector);
    if (held && held.until > clock.now()) throw held.error;
    failed.delete(selector);
    try {
      return await readParameter(selector);
    } catch (error) {
      // Only SSM struggling (throttled, failing) is held; a parameter that is missing or empty is
      // asked for again at once, so the service recovers as soon as an operator puts it.
      if (ssmStruggling((error as Error).cause)) failed.set(selector, { error, until: clock.now() + FAILED_READ_HOLD_MS });
      throw error;
    }
  };
  const readParameter = async (selector: string): Promise<SecretVersion | undefined> => {
    // Standard retries (the SDK's default mode): throttling backs off from 500 ms, other errors from 100 ms, jittered.
    client ??= awsClient(SSMClient, config, 'ssm');
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
