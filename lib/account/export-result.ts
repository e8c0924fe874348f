import * as z from 'zod/mini';
import { deviceListItem } from '../devices/devices-result.js';
import { listedNotification } from '../notifications/listed-notification.js';
import { listedPasskey } from '../passkeys/passkey-schemas.js';
import { heldChangeResult } from '../pending-changes/held-change-result.js';
import { pendingChangesField } from '../pending-changes/pending-change-list.js';
import { listedSession } from '../sessions/listed-session.js';
import { listedStaffAction } from '../staff/listed-staff-action.js';
import { profileSchema } from './profile-result.js';

// Everything the wallet holds about a user (API contract 3.11), as GET /wallet/v3/user/export and
// npm run user:export answer it: never a token, hash, PIN, key or code, nor the staff's reasons.

/** The document itself: what npm run user:export prints, and what a strong session (or a due held export) gets. */
export const exportDocument = z.lazy(() =>
  z.object({
    exported_date: z.int().check(z.meta({ description: 'When this export was made, UNIX seconds' })),
    user: profileSchema(),
    referral: z.object({
      referral_code: z.string(),
      referral_count: z.int().check(z.meta({ description: 'Users who signed up with the code' })),
    }),
    devices: z.array(z.omit(deviceListItem, { current: true })),
    passkeys: z.array(listedPasskey()),
    pending_changes: pendingChangesField(),
    sessions: z.array(listedSession).check(z.meta({ description: 'Sessions still stored, newest first; never a token' })),
    notifications: z.array(listedNotification).check(z.meta({ description: 'Every notification, newest first' })),
    security_events: z
      .array(listedNotification)
      .check(
        z.meta({ description: 'The security notifications (type 2) among them: new device, PIN changed, reset or locked, token reuse' }),
      ),
    staff_actions: z
      .array(listedStaffAction)
      .check(z.meta({ description: 'What the company’s staff did on this account, searches and views included, newest first' })),
  }),
);

export type UserExportResult = z.output<typeof userExportResult>;

export type ExportDocument = z.output<typeof exportDocument>;

/** What GET /wallet/v3/user/export answers (contract 3.15, second reading): the document, or the held export that waits. */
export const userExportResult = z.lazy(() =>
  z.union([
    exportDocument.check(
      z.meta({ description: 'a strong session, or any session of the user once a held export is due (for 7 days after effective_at)' }),
    ),
    heldChangeResult.check(
      z.meta({
        description:
          'an SMS-strength session: the export waits PHONE_CHANGE_HOLD_HOURS (kind export), cancellable from any session; asked again meanwhile, the same change is answered',
      }),
    ),
  ]),
);
