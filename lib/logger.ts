import { Logger } from '@aws-lambda-powertools/logger';
import { config } from './config.js';

// One structured logger for the whole service. Log identifiers and outcomes, never secrets:
// no request bodies, no Authorization header, no codes, PINs, passwords or tokens.
export const logger = new Logger({
  serviceName: 'wallet-auth',
  logLevel: config.logLevel as 'INFO',
});
