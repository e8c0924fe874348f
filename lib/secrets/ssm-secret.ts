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

/** One version of a parameter's value as SSM holds it. */
export interface ParameterValue {
  value: string;
  version: number;
}

/** Reads `name` or `name:version` from SSM; undefined when that version does not exist. */
export type ParameterReader = (selector: string) => Promise<ParameterValue | undefined>;

/**
 * Reads of SSM Parameter Store parameters (SecureStrings decrypted) with the care every secret of
 * the service gets. SSM answers about 40 GetParameter a second per account and region by default,
 * and a ramp or a redeploy starts containers faster than that: a throttled read is retried with
 * the SDK's backoff (a longer one for throttling), and a read that still fails is the answer for
 * every request of the container for FAILED_READ_HOLD_MS, so a struggling SSM is not asked once per
 * request (docs/scaling.md). A read that fails is a ServerSecretUnavailable (503).
 */
export function ssmParameters(config: AwsConfig, clock: Clock = systemClock): ParameterReader {
  let client: SSMClient | undefined;
  const failed = new Map<string, { error: unknown; until: number }>();
  const readParameter = async (selector: string): Promise<ParameterValue | undefined> => {
    // Standard retries (the SDK's default mode): throttling backs off from 500 ms, other errors from 100 ms, jittered.
    client ??= awsClient(SSMClient, config, 'ssm');
    const name = selector.replace(/:\d+$/, '');
    try {
      const { Parameter } = await client.send(new GetParameterCommand({ Name: selector, WithDecryption: true }));
      if (!Parameter?.Value || !Parameter.Version) throw new ServerSecretUnavailable(`parameter ${name} has no value`);
      return { value: Parameter.Value, version: Parameter.Version };
    } catch (error) {
      if (error instanceof ServerSecretUnavailable) throw error;
      if ((error as Error).name === 'ParameterVersionNotFound') return undefined;
      throw new ServerSecretUnavailable(`cannot read parameter ${name}: ${(error as Error).name}`, { cause: error });
    }
  };
  return async (selector) => {
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
}

/**
 * The server secret in SSM Parameter Store, a SecureString: read on first use and kept by
 * ServerKeys for the container's life. A secret's version is the parameter's version, so a new
 * value (`aws ssm put-parameter --overwrite`) takes over for new hashes while anything that names
 * an older version is verified with it (read by `name:version`, SSM keeps the last 100).
 */
export function ssmSecret(
  config: AwsConfig & Pick<Config, 'serverSecretParameter'>,
  read: ParameterReader = ssmParameters(config),
): SecretSource {
  const name = config.serverSecretParameter ?? '';
  const secretOf = (parameter: ParameterValue | undefined): SecretVersion | undefined =>
    parameter && { version: parameter.version, secret: secretBytes(parameter.value) };
  return {
    current: async () => {
      const current = secretOf(await read(name));
      if (!current) throw new ServerSecretUnavailable(`parameter ${name} has no current version`);
      return current;
    },
    version: async (version) => secretOf(await read(`${name}:${version}`)),
  };
}
