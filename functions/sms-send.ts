import type { App } from '../lib/app.js';
import { queueHandler } from '../lib/invoke/queue-handler.js';
import { queueFunction } from '../lib/lambda-entry.js';
import { deliverQueuedTexts, deliveryParts } from '../lib/sms/queued-sms-delivery.js';

// smsSend: the SMS queue's consumer (docs/scaling.md), no HTTP route. Sends each queued code's
// text at its sending pool's pace; what it cannot send now comes again, then to the dead letters.
export const smsSendHandler = (app: App) => {
  const parts = deliveryParts(app);
  return queueHandler(app, (records, deadlineMs) => deliverQueuedTexts(parts, records, deadlineMs));
};

export const handler = queueFunction(smsSendHandler);
