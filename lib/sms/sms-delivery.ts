import type { Config } from '../config.js';
import { type DeliveryParts, deliverQueuedTexts, deliveryParts } from './queued-sms-delivery.js';
import { InProcessQueue, queuedDispatch, type SmsQueue, sqsQueue } from './sms-queue.js';
import { paddedDispatch, type TextDispatch } from './text-dispatch.js';

// How a container's codes reach phones, by config.sms.delivery: published in the request
// (direct), or queued for the consumer (functions/sms-send.ts) to send at the numbers' pace.

/** What delivery is built from: parts of the app (lib/app-context.ts), named here so this room needs no App. */
export type SmsDeliveryParts = Omit<DeliveryParts, 'pacer' | 'pools'> & { config: Config; smsQueue?: SmsQueue | undefined };

/** Local stages without SMS_QUEUE_URL: the consumer runs in this process, on the app's own sender. */
export function inProcessQueue(app: SmsDeliveryParts): InProcessQueue {
  const parts = deliveryParts(app);
  return new InProcessQueue((records, deadlineMs) => deliverQueuedTexts(parts, records, deadlineMs), {
    timer: app.timer,
    logger: app.logger,
  });
}

/** One per container: a direct dispatch keeps this container's send times. */
export function textDispatchFor(app: SmsDeliveryParts): TextDispatch {
  const { sms } = app.config;
  if (sms.delivery === 'direct') return paddedDispatch(app.sms, app.timer, sms.decoy);
  return queuedDispatch(app.keys, app.smsQueue ?? (sms.queueUrl ? sqsQueue(app.config, sms.queueUrl) : inProcessQueue(app)));
}
