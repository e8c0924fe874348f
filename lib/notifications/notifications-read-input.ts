import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { hexIdField } from '../ids.js';

// What to mark read (API contract 3.9): some notifications by id, or every unread one (created at
// or before `before` when given, so a client passes the created_date of the newest one it showed).

export const MAX_IDS = 100;
// Later than any notification's time can be, and small enough for its sort key bound.
const LATEST_BEFORE = 99_999_999_999;

type ReadBody = { ids?: unknown; all?: unknown; before?: unknown };

export const notificationsReadBody = z
  .object({
    ids: z.optional(
      z
        .array(hexIdField('notification id'))
        .check(
          z.minLength(1, 'must hold 1 to 100 ids'),
          z.maxLength(MAX_IDS, 'must hold 1 to 100 ids'),
          z.meta({ description: 'Notifications to mark read' }),
        ),
    ),
    all: z.optional(z.literal(1, { error: 'must be 1' }).check(z.meta({ description: '1: mark every unread notification read' }))),
    before: z.optional(
      z
        .int({ error: 'must be UNIX seconds' })
        .check(
          z.gte(0, 'must be UNIX seconds'),
          z.lte(LATEST_BEFORE, 'must be UNIX seconds'),
          z.meta({ description: 'With all: only those created at or before this time (UNIX seconds)' }),
        ),
    ),
  })
  .check(
    z.superRefine((body: ReadBody, context) => {
      if ((body.ids === undefined) === (body.all === undefined)) {
        context.addIssue({ code: 'custom', path: ['ids'], message: 'send either ids or all: 1' });
      } else if (body.ids !== undefined && body.before !== undefined) {
        context.addIssue({ code: 'custom', path: ['before'], message: 'goes with all: 1 only' });
      }
    }),
  );

export type NotificationsReadInput = z.output<typeof notificationsReadBody>;
export type NotificationsReadCall = Call<NotificationsReadInput, Record<string, never>, Principal>;
