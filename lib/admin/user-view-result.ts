import * as z from 'zod/mini';
import { profileSchema } from '../account/profile-result.js';
import { deviceListItem } from '../devices/devices-result.js';
import { listedNotification } from '../notifications/listed-notification.js';
import { listedPasskey } from '../passkeys/passkey-schemas.js';
import { pendingChangesField } from '../pending-changes/pending-change-list.js';
import { listedSession } from '../sessions/listed-session.js';
import { listedStaffAction } from '../staff/listed-staff-action.js';

// What the back office's view shows of a user (API contract 3.14): the profile with the phone and
// email masked (whole only for an admin who asks), how the account is reached (devices, sessions,
// PINs), what is under way (a phone change, a deletion), and what happened to it lately. Never a
// hash, PIN, code, token or key.

/** The profile of 3.11 with the phone and email as a search shows them; whole only when revealed. */
const viewedProfile = () =>
  z.extend(z.omit(profileSchema(), { email: true, dial_code: true, phone_number: true }), {
    phone_last4: z.string().check(z.meta({ description: 'The last 4 digits of the phone number' })),
    email_masked: z.nullable(z.string().check(z.meta({ description: 'The first letter, ***, and the domain: a***@example.com' }))),
    dial_code: z.optional(z.string().check(z.meta({ description: 'Only when an admin sent reveal: 1' }))),
    phone_number: z.optional(z.string().check(z.meta({ description: 'Only when an admin sent reveal: 1' }))),
    email: z.optional(z.nullable(z.string().check(z.meta({ description: 'Only when an admin sent reveal: 1' })))),
  });

const flag = () => z.union([z.literal(0), z.literal(1)]);

/** Where one PIN stands: set or not, locked or not, and the wrong tries left before it locks. */
const pinStanding = () =>
  z.object({
    set: flag().check(z.meta({ description: '0: the user has no such PIN' })),
    locked: flag().check(z.meta({ description: '1 after too many wrong tries: opened by an OTP login (login PIN) or a reset' })),
    attempts_left: z.int(),
  });

export const userViewResult = z.lazy(() =>
  z.object({
    user: viewedProfile(),
    devices: z
      .array(z.omit(deviceListItem, { current: true }))
      .check(z.meta({ description: 'The bound devices, most recently used first, as the user’s own list shows them' })),
    passkeys: z.array(listedPasskey()).check(
      z.meta({
        description:
          'The passkeys, newest first, as the user’s own list shows them (never a key); staff remove one with users/passkeys/remove',
      }),
    ),
    sessions: z
      .array(
        z.extend(listedSession, {
          sid: z.nullable(
            z
              .string()
              .check(z.meta({ description: 'The session’s id, as its access tokens’ sid claim; null for a session from before 3.12' })),
          ),
        }),
      )
      .check(z.meta({ description: 'The sessions not ended or expired, newest first; never a token' })),
    pins: z.object({ login: pinStanding(), transaction: pinStanding() }),
    pending_phone_change: z.nullable(
      z
        .object({
          change_id: z.string(),
          effective_at: z.int().check(z.meta({ description: 'UNIX seconds from which an OTP login to the new number completes it' })),
          phone_last4: z.string().check(z.meta({ description: 'the last 4 digits of the new number' })),
          via: z.enum(['user', 'support']),
          awaiting_approval: z.int().check(
            z.meta({
              description: '1: a recovery a second employee, an admin, has not approved yet (effective_at is then its approval deadline)',
            }),
          ),
          started_by: z.nullable(z.string().check(z.meta({ description: 'the employee who started a recovery' }))),
        })
        .check(z.meta({ description: 'the pending phone change, running or a recovery awaiting approval; null when none' })),
    ),
    pending_changes: pendingChangesField(),
    deletion: z.nullable(
      z
        .object({ erase_after: z.int().check(z.meta({ description: 'UNIX seconds: when the account is erased unless restored' })) })
        .check(z.meta({ description: 'The deletion the user asked for (status 4); null otherwise' })),
    ),
    referral_count: z.int().check(z.meta({ description: 'Users who signed up with the user’s referral code' })),
    security_events: z
      .array(z.pick(listedNotification, { notification_event_type: true, notification_title: true, created_date: true }))
      .check(z.meta({ description: 'The latest 20 security notifications (type 2), newest first' })),
    staff_actions: z
      .array(listedStaffAction)
      .check(z.meta({ description: 'The latest 50 back-office actions on the user, this view included, newest first' })),
  }),
);

export type UserViewResult = z.output<typeof userViewResult>;
export type ViewedProfile = z.output<ReturnType<typeof viewedProfile>>;
export type PinStanding = z.output<ReturnType<typeof pinStanding>>;
