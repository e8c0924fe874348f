import { Logger, type LogItem } from '@aws-lambda-powertools/logger';
import { type App, createApp } from '../lib/app.js';
import { readConfig } from '../lib/config.js';

// The service's parts for an operator command, configured from its environment like the
// functions. Its log lines (audit events included) go to stderr, so that stdout holds the
// command's result alone and `$(npm run -s user:disable ...)` captures just that.

class StderrLogger extends Logger {
  protected override printLog(_logLevel: number, log: LogItem): void {
    log.prepareForPrint();
    process.stderr.write(`${JSON.stringify(log.getAttributes())}\n`);
  }
}

export function operatorApp(): App {
  const config = readConfig();
  return createApp(config, { logger: new StderrLogger({ serviceName: 'wallet-auth', logLevel: config.logLevel }) });
}
