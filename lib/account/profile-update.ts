import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { App } from '../app-context.js';
import type { Principal, RequestKey } from '../call.js';
import { epochSeconds } from '../clock.js';
import { AppError, ErrorCodes } from '../errors.js';
import { holdChange } from '../pending-changes/held-change.js';
import { isStrong } from '../sessions/session-strength.js';
import type { TextDispatch } from '../sms/text-dispatch.js';
import { conditionalWrite } from '../store/conditional-write.js';
import { ConditionsFailed, type LabelledItem, writeTransaction } from '../store/transactions.js';
import { emailClaimPut, emailClaimRelease, getUser, type ProfileChanges, userProfileChange } from '../store/user-store.js';
import { requirePastBirthDate } from '../users/profile-fields.js';
import { activeUser, profileOf } from './profile.js';
import { emailClaimFreeFor, heldFieldsOf } from './profile-change.js';
import type { UserProfileUpdateResult } from './profile-result.js';
import type { UserProfileUpdateCall, UserProfileUpdateInput } from './profile-update-input.js';

// POST /wallet/v3/user/profile/update (API contract 3.11 and 3.15, second reading): in a module of
// its own, so that only its function carries the hold's SMS path.

const emailTaken = () =>
  new AppError('ALREADY_REGISTERED', {
    detail: 'email already registered',
    fields: [{ code: ErrorCodes.ALREADY_REGISTERED.code, field: 'email', detail: 'is already registered for this user type' }],
  });

/** Rounds of the change: each one lost to a concurrent change of the same user reads the user again. */
const MAX_ROUNDS = 5;

/**
 * POST /wallet/v3/user/profile/update (API contract 3.11 and 3.15, second reading). From a strong
 * session every field changes at once (profileChangeNow). From an SMS-strength one (a SIM swapper's
 * OTP login is one) a change of the names, the birth date or the email is held (kind `profile`,
 * profile-change.ts), its email refused at once when another user holds it (409 code 7); the image
 * and the location given beside them change at once, once the hold is stored. The answer is the
 * profile as it now is, with pending, change_id and effective_at when a change waits.
 */
export async function userProfileUpdate(
  app: App,
  call: UserProfileUpdateCall & RequestKey,
  texts: TextDispatch,
): Promise<UserProfileUpdateResult> {
  const { body: input, principal } = call;
  requirePastBirthDate(input, app.clock.now());
  if (isStrong(principal)) return profileChangeNow(app, principal, input);
  const { companyId, userId } = principal;
  const user = await activeUser(app, companyId, userId);
  // A field given as it already is changes nothing, and waits for nothing (an app may send the whole form).
  const held = heldFieldsOf(input, user);
  if (Object.keys(held).length === 0) return profileChangeNow(app, principal, input);
  const email = held.email;
  const change = await holdChange(app, call, texts, {
    kind: 'profile',
    details: { fields: held },
    warnPhoneE164: user.phone_e164,
    items: () =>
      email !== undefined && email !== user.email
        ? [{ label: 'email_free', item: emailClaimFreeFor(app, companyId, email, user.user_type, userId) }]
        : [],
    refusal: (labels) => (labels.includes('email_free') ? emailTaken() : undefined),
    message: 'Profile change pending',
  });
  const now: UserProfileUpdateInput = { image: input.image, location_point: input.location_point };
  const changedNow = now.image !== undefined || now.location_point !== undefined;
  const current = changedNow ? (await profileChangeNow(app, principal, now)).user : profileOf(user);
  return { ...change, user: current };
}

/**
 * Changes the profile fields given (API contract 3.11) in one transaction: the record, only while
 * its email is the one read, and for a new email its claim taken (held by another user: 409 code 7)
 * and the old one given up, free for anyone at once.
 */
async function profileChangeNow(app: App, principal: Principal, input: UserProfileUpdateInput): Promise<UserProfileUpdateResult> {
  const { companyId, userId } = principal;
  const changes: ProfileChanges = {
    first_name: input.first_name,
    last_name: input.last_name,
    email: input.email,
    image: input.image,
    birth_date: input.birth_date,
    location_point: input.location_point,
  };
  // An old claim that is not the user's (never written, as for users from before claims) is left alone.
  let releaseOld = true;
  for (let round = 1; ; round++) {
    const user = await activeUser(app, companyId, userId);
    const now = epochSeconds(app.clock);
    const newEmail = input.email !== undefined && input.email !== user.email ? input.email : undefined;
    const items: LabelledItem<'user' | 'email' | 'old_email'>[] = [
      { label: 'user', item: userProfileChange(app.table, companyId, userId, changes, user, now, newEmail !== undefined) },
    ];
    if (newEmail) {
      items.push({ label: 'email', item: emailClaimPut(app.table, companyId, newEmail, user.user_type, userId) });
      if (user.email && releaseOld) {
        items.push({ label: 'old_email', item: emailClaimRelease(app.table, companyId, user.email, user.user_type, userId) });
      }
    }
    try {
      if (items.length === 1) {
        // No claim moves: the record alone, one conditional update (half a transaction's write units).
        const outcome = await conditionalWrite(app.table.client.send(new UpdateCommand(items[0]!.item.Update!)));
        if (!outcome.written) throw new ConditionsFailed(['user']);
      } else {
        await writeTransaction(app.table, items);
      }
      const changed = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
      return { message: 'Profile updated', user: profileOf({ ...user, ...changed, updated_at: now }) };
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      if (error.labels.includes('email')) {
        // A write the SDK sent again after its answer was lost finds its own claim taken and the record
        // moved on: the email is the user's, and this change is done (a transaction's retry is not
        // always answered from its idempotency token: DynamoDB Local runs it again).
        const now = await getUser(app.table, companyId, userId, true);
        if (newEmail && now?.email === newEmail) return { message: 'Profile updated', user: profileOf(now) };
        throw emailTaken();
      }
      // The record still had that email, and yet its claim is not the user's: leave it. (With the
      // record changed meanwhile, the claim's failure is the same race: the next round reads it again.)
      if (error.labels.includes('old_email') && !error.labels.includes('user')) releaseOld = false;
      if (round >= MAX_ROUNDS) throw error;
    }
  }
}
