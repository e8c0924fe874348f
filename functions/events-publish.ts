import type { App } from '../lib/app.js';
import { eventPublisher, publishStreamRecords } from '../lib/events/publish-events.js';
import { streamHandler } from '../lib/invoke/stream-handler.js';
import { streamFunction } from '../lib/lambda-entry.js';

// eventsPublish: reads the table's stream and puts the events of API contract 3.13 on the
// service's EventBridge bus (lib/events), no HTTP route. What cannot be put goes to the
// dead-letter queue; what cannot go there either comes again from its record.
export const eventsPublishHandler = (app: App) => {
  const publisher = eventPublisher(app);
  return streamHandler(app, async (records, deadlineMs) => {
    // A stage packaged without its bus: the records stay on the stream (the iterator age alarm says so).
    if (!publisher) throw new Error('EVENT_BUS_NAME is not set: no bus to put events on');
    return publishStreamRecords(publisher, app.config, records, deadlineMs);
  });
};

export const handler = streamFunction(eventsPublishHandler);
