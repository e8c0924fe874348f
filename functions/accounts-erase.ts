import type { Context } from 'aws-lambda';
import { type EraseOutcome, eraseDueAccounts } from '../lib/account/erasure.js';
import type { App } from '../lib/app.js';
import { scheduledFunction } from '../lib/lambda-entry.js';

// accountsErase: the eraser (API contract 3.11), run by an EventBridge schedule, no HTTP route.
// Erases due accounts page by page and stops taking pages well before Lambda's timeout; what is
// left is taken by the next run (serverless.yml custom.eraser). A run where any erasure failed fails itself, for its alarm.

/** The share of the run's time kept back: the last page ends well before the timeout (and its Duration alarm at 80 %). */
const STOP_SHARE = 0.3;

export const accountsEraseHandler =
  (app: App) =>
  async (_event: unknown, context: Context): Promise<EraseOutcome> => {
    app.logger.addContext(context);
    app.metrics.startRequest(context.awsRequestId);
    try {
      const outcome = await eraseDueAccounts(app, {
        timeLeftMs: () => context.getRemainingTimeInMillis(),
        marginMs: context.getRemainingTimeInMillis() * STOP_SHARE,
      });
      app.logger.info('eraser run', { ...outcome });
      if (outcome.failed) throw new Error(`${outcome.failed} erasure(s) failed; they are tried again at the next run`);
      return outcome;
    } finally {
      app.metrics.publish();
      app.logger.resetKeys();
    }
  };

export const handler = scheduledFunction(accountsEraseHandler);
