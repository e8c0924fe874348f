import { realpathSync } from 'node:fs';
import { text } from 'node:stream/consumers';
import { fileURLToPath } from 'node:url';
import { Logger, type LogItem } from '@aws-lambda-powertools/logger';
import { type App, createApp } from '../lib/app.js';
import { readConfig } from '../lib/config.js';

// What the operator commands share: where they read and write, how npm runs them, and the
// service's parts, configured from their environment like the functions. Log lines (audit events
// included) go to stderr, so that stdout holds the command's result alone and
// `$(npm run -s user:disable ...)` captures just that.

/** What a command reads and writes: the process's when npm runs it; a test hands in its own. */
export interface OperatorIo {
  /** The environment its configuration is read from. */
  env: Record<string, string | undefined>;
  /** Writes a line of the result (stdout). */
  out(line: string): void;
  /** Writes a line for the operator (stderr). */
  err(line: string): void;
  /** Standard input, to its end. */
  input(): Promise<string>;
}

/** An operator command: its arguments in, its exit code out (0 done, 1 failed, 2 refused its options). */
export type OperatorMain = (argv: string[], io: OperatorIo) => Promise<number>;

export const processIo: OperatorIo = {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  input: () => text(process.stdin),
};

/**
 * Runs the command when its file is the one node was started with (npm run ...), not when a test
 * imports it to call main in process; main's answer becomes the exit code.
 */
export async function runIfMain(moduleUrl: string, main: OperatorMain): Promise<void> {
  const started = process.argv[1];
  if (started && realpathSync(started) === realpathSync(fileURLToPath(moduleUrl))) {
    process.exitCode = await main(process.argv.slice(2), processIo);
  }
}

class LineLogger extends Logger {
  // Unset while Logger's own constructor runs (it may print then): stderr meanwhile.
  private write: ((line: string) => void) | undefined;

  constructor(write: (line: string) => void, options: ConstructorParameters<typeof Logger>[0]) {
    super(options);
    this.write = write;
  }

  protected override printLog(_logLevel: number, log: LogItem): void {
    log.prepareForPrint();
    (this.write ?? processIo.err)(JSON.stringify(log.getAttributes()));
  }
}

export function operatorApp(io: OperatorIo = processIo): App {
  const config = readConfig(io.env);
  return createApp(config, { logger: new LineLogger(io.err, { serviceName: 'wallet-auth', logLevel: config.logLevel }) });
}
