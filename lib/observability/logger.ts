import { Logger } from '@aws-lambda-powertools/logger';
import type { LogLevel } from '../config.js';

// One structured logger per function. Log identifiers and outcomes, never secrets: no request
// bodies, no Authorization header, no codes, PINs, passwords or tokens.
export function createLogger(logLevel: LogLevel): Logger {
  return new Logger({ serviceName: 'wallet-auth', logLevel });
}

export type { Logger };
