// What each function may do, and nothing more: serverless/stack.cjs builds one IAM role per
// function from this list, and tests/deploy/function-permissions.test.ts runs every flow of each
// function against DynamoDB Local and checks it does exactly this (no less, or AWS refuses it; no
// more, or the role grants what nobody uses).
//   table   grants, each some DynamoDB actions on some kinds of item (serverless/key-kinds.cjs, named
//           after the lib/store/keys.ts functions; the role holds each grant to their partition keys).
//           A transaction needs the action of each of its items; a BatchWriteItem needs BatchWriteItem.
//           With attributes: an update that names only those (and the key) in what it writes and in
//           its condition, and returns nothing, or what `returns` names.
//   secret  ssm:GetParameter on the server secret's parameter (keys of PINs, codes, cursors, phone refs)
//   signingKeys  "verify": ssm:GetParameter on the public signing key set (every function that reads a
//           token, and the JWKS); "sign": on the private set too (the functions that answer a session)
//   sms     sns:Publish to phone numbers
//   queue   the SMS queue: "send" (sqs:SendMessage), or "consume" (what its event source needs)
//   events  "publish": events:PutEvents on the stack's event bus only
//   stream  "read": what a Lambda event source needs of the table's stream (and of nothing else of the table)
//   deadLetters  "events": sqs:SendMessage on the events' dead-letter queue only

const {
  appendStaffRecord,
  recordSessionUse,
  recordUseAndEndSessions,
  keepAnswers,
  keepAndRecallAnswers,
  readCompanyAndSession,
  spendProofs,
  PIN_TRIES,
  UNREAD,
  PIN_REHASH,
  TRIES_READ_BACK,
  PIN_DAILY,
  HOLD_CHANGE,
  HOLD_KNOWN_CHANGE,
  END_CHANGE,
  DELETION_USER,
} = require('./permission-parts.cjs');

/** A user's pending change cancelled (contract 3.15; phone/change/cancel of 3.11 and changes/cancel alike). */
const cancelPendingChange = [
  keepAnswers,
  readCompanyAndSession,
  { actions: ['Query'], keys: ['pendingChange'] },
  {
    actions: ['UpdateItem'],
    keys: ['pendingChange', 'unreadCount'],
    attributes: [...UNREAD, 'ended_reason', 'ended_at', 'ended_by_request', 'change_id', 'expires_at'],
  },
  { actions: ['PutItem'], keys: ['notification'] },
  { actions: ['DeleteItem'], keys: ['phoneChangeIndex'] },
  recordSessionUse,
];

module.exports = {
  userRegister: {
    table: [
      spendProofs,
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user', 'phoneClaim', 'referralCode'] },
      { actions: ['PutItem'], keys: ['user', 'session', 'notification', 'phoneClaim', 'emailClaim', 'referralCode'] },
      // A shard of the referrer's count, and their unread count with the referral notification.
      { actions: ['UpdateItem'], keys: ['referralCount', 'unreadCount'] },
      // The reclaimed holder's status, the parent's existence.
      { actions: ['UpdateItem', 'ConditionCheckItem'], keys: ['user'] },
      // The new user's first device: its index and list items.
      { actions: ['UpdateItem'], keys: ['deviceIndex', 'userDevice'] },
      // A phone proof used up; a reclaimed holder's email claim and sessions.
      { actions: ['DeleteItem'], keys: ['phoneProof', 'emailClaim'] },
      // The holder's devices and passkeys: a live holder is never displaced by a reclaim (contract 3.15; a passkey used in 90 days keeps it live).
      { actions: ['Query'], keys: ['session', 'userDevice', 'userPasskey'] },
      // An employee's registration by an admin is a staff action (contract 3.14, round 6): its record.
      ...appendStaffRecord,
      { actions: ['PutItem'], keys: ['staffAction'] },
      recordUseAndEndSessions,
    ],
    secret: true,
    signingKeys: 'sign',
  },
  loginPhone: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['phoneClaim', 'phoneFailures'] },
      // A user's pending phone change to the number, once due, gets the code (its index, the user, the change;
      // the holder, when the number is held, to see whether the completion reclaims it).
      { actions: ['GetItem'], keys: ['phoneChangeIndex', 'user', 'pendingChange'] },
      { actions: ['UpdateItem'], keys: ['addressLimit', 'phoneSendLimit', 'companySendLimit', 'prefixSendLimit'] },
      { actions: ['PutItem'], keys: ['otp', 'phoneSendLimit'] },
      // A text that could not be queued gives the phone's count back (its counters as before, or
      // none) and takes its code away.
      { actions: ['DeleteItem'], keys: ['phoneSendLimit', 'otp'] },
      recordSessionUse,
    ],
    secret: true,
    queue: 'send',
    signingKeys: 'verify',
  },
  // The SMS queue's consumer: opens each text (the secret's queue key) and publishes it; no table.
  smsSend: {
    secret: true,
    sms: true,
    queue: 'consume',
  },
  verifyOtp: {
    table: [
      spendProofs,
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['phoneClaim'] },
      // Tries taken before a code is compared (the address, the code, the phone's failures), a code
      // used up, and the user's side of a session.
      { actions: ['UpdateItem'], keys: ['addressLimit', 'otp', 'phoneFailures', 'user'] },
      // A login that completes a pending phone change (contract 3.11): the user and the change read; the
      // new claim taken, the old released, the change and its index deleted, the old number's code
      // deleted (the user's record and sessions as above); a change whose number was taken marked void.
      // A number taken from a holder who never proved it (contract 6): their record and sessions as
      // above, their email claim freed.
      { actions: ['GetItem'], keys: ['user', 'pendingChange'] },
      { actions: ['PutItem'], keys: ['phoneClaim'] },
      { actions: ['DeleteItem'], keys: ['phoneClaim', 'otp', 'pendingChange', 'phoneChangeIndex', 'emailClaim'] },
      {
        actions: ['UpdateItem'],
        keys: ['pendingChange'],
        attributes: ['ended_reason', 'ended_at', 'ended_by_request', 'change_id', 'expires_at'],
      },
      // A phone's try given back that leaves its window empty (an OTP login no longer opens a locked PIN: contract 3.15).
      { actions: ['DeleteItem'], keys: ['phoneFailures'] },
      { actions: ['PutItem'], keys: ['session', 'phoneProof', 'phoneFailures'] },
      // A device bound with the login: the user's list, the binding, its notice; the least recently
      // used device removed with its sessions when the user has the most allowed.
      { actions: ['Query'], keys: ['userDevice', 'session'] },
      { actions: ['GetItem'], keys: ['deviceIndex'] },
      { actions: ['UpdateItem'], keys: ['deviceIndex', 'userDevice', 'unreadCount'] },
      { actions: ['PutItem'], keys: ['notification'] },
      { actions: ['DeleteItem'], keys: ['deviceIndex', 'userDevice'] },
      // A recovery's completion removes every passkey (contract 3.15, second reading): each, its claim, the count.
      { actions: ['Query'], keys: ['userPasskey'] },
      { actions: ['DeleteItem'], keys: ['userPasskey', 'passkeyCredential'] },
      { actions: ['UpdateItem'], keys: ['userPasskeyCount'], attributes: ['passkey_count'] },
      recordUseAndEndSessions,
    ],
    secret: true,
    // The warning to the old number of a completed phone change.
    queue: 'send',
    signingKeys: 'sign',
  },
  // No token: the device's signature and the PIN are the proof.
  loginPin: {
    table: [
      spendProofs,
      keepAnswers,
      { actions: ['GetItem'], keys: ['company', 'deviceIndex', 'user'] },
      // The user's devices and pending changes, one Query (its lower bound is the changes').
      { actions: ['Query'], keys: ['pendingChange'] },
      { actions: ['PutItem'], keys: ['deviceNonce', 'session', 'notification'] },
      // The PIN's try, its hash made again under a new key version, and the grant: the user (an
      // active one, the PIN's version as compared, a session counted, when a right or strong PIN
      // came), the device still bound and its last use; a lock's notice counted unread.
      {
        actions: ['UpdateItem'],
        keys: ['pinTries', 'user', 'userDevice', 'unreadCount'],
        attributes: [
          ...PIN_TRIES,
          ...UNREAD,
          ...PIN_REHASH.login,
          'status_id',
          'login_pin_version',
          // A PIN the user sets is no longer one staff chose (contract 3.15, pin_setup).
          'login_pin_to_set',
          'session_version',
          'last_used_at',
          'login_pin_right_at',
          'strong_login_at',
          // A strong login holds the devices still on probation (contract 3.15): their listing here, their index below.
          'probation_held',
          'probation_since',
          // not_me: 1 removes the devices on probation, one off the count each.
          'device_count',
          // A held deletion that is due lands (below).
          'erase_after',
          'deleted_at',
          'updated_at',
          'deleted_device_keys',
        ],
        returns: TRIES_READ_BACK,
      },
      { actions: ['UpdateItem'], keys: ['deviceIndex'], attributes: ['probation_held', 'probation_since'] },
      { actions: ['DeleteItem'], keys: ['pinTries'] },
      // With not_me: 1, as user/security/not_me: changes ended (a phone change's index freed), devices on
      // probation removed, passkeys registered lately removed (contract 3.15, second reading), and the
      // user's other sessions ended.
      END_CHANGE,
      { actions: ['DeleteItem'], keys: ['deviceIndex', 'userDevice', 'phoneChangeIndex'] },
      { actions: ['Query'], keys: ['userPasskey', 'session'] },
      { actions: ['DeleteItem'], keys: ['userPasskey', 'passkeyCredential'] },
      { actions: ['UpdateItem'], keys: ['userPasskeyCount'], attributes: ['passkey_count'] },
      { actions: ['UpdateItem'], keys: ['session'], attributes: ['ended_reason', 'ended_at_ms'] },
      ...PIN_DAILY,
      // A held deletion that is due lands at the login (contract 3.15, second reading), as user/delete
      // makes one (the user's attributes above): the phone claim kept but marked, the change deleted
      // (only a customer's: an employee's deletion is never held, so no admin seat moves here).
      { actions: ['Query'], keys: ['userDevice'] },
      { actions: ['GetItem', 'UpdateItem'], keys: ['phoneClaim'] },
      { actions: ['PutItem'], keys: ['erasureDue', 'erasureCompany'] },
      { actions: ['DeleteItem'], keys: ['pendingChange'] },
    ],
    secret: true,
    signingKeys: 'sign',
  },

  devices: {
    table: [
      readCompanyAndSession,
      // The user's devices and pending changes, one Query (its lower bound is the changes').
      { actions: ['Query'], keys: ['pendingChange'] },
      // A held removal that is due, put in place: the device (read, its two items deleted), its
      // sessions ended, the user's count, the change deleted.
      { actions: ['GetItem'], keys: ['deviceIndex'] },
      { actions: ['Query'], keys: ['session'] },
      { actions: ['DeleteItem'], keys: ['deviceIndex', 'userDevice', 'pendingChange'] },
      { actions: ['UpdateItem'], keys: ['user'], attributes: ['device_count'] },
      recordUseAndEndSessions,
    ],
    // A DPoP proof refused carries a fresh nonce (DPoP-Nonce), keyed by the server secret (contract 3.17).
    secret: true,
    signingKeys: 'verify',
  },

  devicesRemove: {
    table: [
      keepAndRecallAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['deviceIndex', 'user'] },
      { actions: ['Query'], keys: ['session'] },
      { actions: ['DeleteItem'], keys: ['deviceIndex', 'userDevice'] },
      // One off the user's device count, and nothing else of the user.
      { actions: ['UpdateItem'], keys: ['user'], attributes: ['device_count'] },
      // A settled device removed from an SMS-strength session waits (contract 3.15), with its notice.
      HOLD_CHANGE,
      { actions: ['PutItem'], keys: ['notification'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      // No held change while staff froze them (contract 3.15).
      { actions: ['ConditionCheckItem'], keys: ['changeFreeze'] },
      recordUseAndEndSessions,
    ],
    // The Idempotency-Key's answer is stored sealed under a key derived from the server secret.
    secret: true,
    queue: 'send',
    signingKeys: 'verify',
  }, // A device on probation settled by the owner's fresh strong session (contract 3.15): its two items.
  devicesApprove: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['deviceIndex'] },
      { actions: ['UpdateItem'], keys: ['deviceIndex', 'userDevice'], attributes: ['probation_since', 'probation_held'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },

  // A strong session proven again by its device and PIN (contract 3.15): the device, its nonce, the
  // PIN's tally, the session's auth_time; a new access token signed.
  stepUp: {
    table: [
      spendProofs,
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['deviceIndex', 'user'] },
      { actions: ['PutItem'], keys: ['deviceNonce', 'notification'] },
      {
        actions: ['UpdateItem'],
        keys: ['pinTries', 'unreadCount'],
        attributes: [...PIN_TRIES, ...UNREAD, ...PIN_REHASH.login],
        returns: TRIES_READ_BACK,
      },
      { actions: ['DeleteItem'], keys: ['pinTries'] },
      // The session's use recorded, and its step-up: auth_at, only while it is live, strong and on that device.
      {
        actions: ['UpdateItem'],
        keys: ['session'],
        attributes: ['auth_at', 'last_used_at', 'ended_reason', 'device_key', 'expires_at', 'acr', 'began'],
        returns: ['ALL_NEW'],
      },
      // A step-up by passkey (contract 3.15, second reading): its challenge and passkey read, the challenge taken, the counter moved.
      { actions: ['GetItem'], keys: ['webauthnChallenge', 'passkeyCredential', 'userPasskey'] },
      { actions: ['DeleteItem'], keys: ['webauthnChallenge'] },
      { actions: ['UpdateItem'], keys: ['userPasskey'], attributes: ['counter', 'last_used_at', 'cloned_at'] },
    ],
    secret: true,
    signingKeys: 'sign',
  },

  // A new PIN for either PIN, ending every other session: the current PIN counted (change), a
  // phone proof used up (reset), the PIN's tries cleared, a notice (and one when a wrong PIN locks it).
  changePin: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user'] },
      // The user's pending changes (a held PIN of this type, due, is put in place first, its change deleted).
      { actions: ['Query'], keys: ['pendingChange', 'pinTries'] },
      // The current PIN's try (and its hash made again), the new PIN's hash and version, a notice counted unread.
      {
        actions: ['UpdateItem'],
        keys: ['pinTries', 'user', 'unreadCount'],
        attributes: [
          ...PIN_TRIES,
          ...UNREAD,
          ...PIN_REHASH.login,
          ...PIN_REHASH.transaction,
          'login_pin_version',
          'transaction_pin_version',
          'login_pin_to_set',
          'transaction_pin_to_set',
          'updated_at',
        ],
        returns: TRIES_READ_BACK,
      },
      { actions: ['Query'], keys: ['session'] },
      { actions: ['DeleteItem'], keys: ['pinTries', 'pendingChange'] },
      { actions: ['PutItem'], keys: ['notification'] },
      ...PIN_DAILY,
      // From an SMS-strength session the new PIN waits (contract 3.15); from a strong one it supersedes a PIN that waited.
      HOLD_KNOWN_CHANGE,
      END_CHANGE,
      // No held change while staff froze them (contract 3.15).
      { actions: ['ConditionCheckItem'], keys: ['changeFreeze'] },
      recordUseAndEndSessions,
    ],
    secret: true,
    queue: 'send',
    signingKeys: 'verify',
  },

  resetPin: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user'] },
      { actions: ['Query'], keys: ['pendingChange', 'pinTries'] },
      { actions: ['UpdateItem'], keys: ['user', 'unreadCount'] },
      { actions: ['Query'], keys: ['session'] },
      { actions: ['DeleteItem'], keys: ['pinTries', 'phoneProof'] },
      { actions: ['PutItem'], keys: ['notification'] },
      // From an SMS-strength session the new PIN waits (contract 3.15); from a strong one it supersedes a reset that waited.
      HOLD_KNOWN_CHANGE,
      END_CHANGE,
      // No held change while staff froze them (contract 3.15).
      { actions: ['ConditionCheckItem'], keys: ['changeFreeze'] },
      recordUseAndEndSessions,
    ],
    secret: true,
    queue: 'send',
    signingKeys: 'verify',
  },

  // Spends a refresh token (one conditional update of its session) and answers a new pair; a reused
  // one ends its session with a security notice.
  tokenRefresh: {
    table: [
      spendProofs,
      keepAnswers,
      { actions: ['GetItem'], keys: ['company'] },
      {
        actions: ['UpdateItem'],
        keys: ['session'],
        attributes: [
          'refresh_hash',
          'refresh_gen',
          'last_used_at',
          'expires_at',
          'ended_reason',
          'ended_at_ms',
          'refresh_prev_hash',
          'refreshed_at',
          'refresh_key_version',
          'refreshed_by',
          'refreshed_for_request',
          // Named in the condition only: a session bound to a key is spent only with a proof by it (contract 3.17).
          'dpop_jkt',
        ],
        returns: ['ALL_NEW'],
      },
      { actions: ['PutItem'], keys: ['notification'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'] },
    ],
    // The refresh tokens' tags and the sealed answers are keyed by the server secret.
    secret: true,
    signingKeys: 'sign',
  },
  // The discovery document and the JWKS: the public keys, nothing else.
  wellKnown: {
    signingKeys: 'verify',
  },
  logout: {
    table: [keepAndRecallAnswers, readCompanyAndSession, { actions: ['Query'], keys: ['session'] }, recordUseAndEndSessions],
    // The Idempotency-Key's answer is stored sealed under a key derived from the server secret.
    secret: true,
    signingKeys: 'verify',
  },
  // Reads only, but for the one attribute that records a session's use (docs/operations.md).
  referralProgram: {
    table: [
      readCompanyAndSession,
      // The user with their referral count shards (one Query), and the notifications.
      { actions: ['Query'], keys: ['user', 'notification'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
  // Reads only, but for a session's use, as referralProgram: the page and the unread count's shards.
  notifications: {
    table: [readCompanyAndSession, { actions: ['Query'], keys: ['notification', 'unreadCount'] }, recordSessionUse],
    secret: true,
    signingKeys: 'verify',
  },
  // Marks notifications read (is_read, updated_date) and takes them off the unread count.
  notificationsRead: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['Query'], keys: ['notification', 'unreadCount'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'] },
      { actions: ['UpdateItem'], keys: ['notification'], attributes: ['is_read', 'updated_date'] },
      recordSessionUse,
    ],
    // The Idempotency-Key's answer is stored sealed under a key derived from the server secret.
    secret: true,
    signingKeys: 'verify',
  },
  transactionAuthorization: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user'] },
      // The user's pending changes: an SMS-strength session approves nothing while one waits (contract 3.15).
      { actions: ['Query'], keys: ['pendingChange'] },
      // A try taken before the PIN is compared (and the PIN's hash made again); the unread count of a PIN-locked notice.
      {
        actions: ['UpdateItem'],
        keys: ['pinTries', 'unreadCount'],
        attributes: [...PIN_TRIES, ...UNREAD, ...PIN_REHASH.transaction, 'transaction_pin_to_set'],
        returns: TRIES_READ_BACK,
      },
      ...PIN_DAILY,
      { actions: ['PutItem'], keys: ['authorization', 'authorizationReference', 'notification'] },
      // A right PIN clears its tries (in the authorization's transaction, or alone when it is refused).
      { actions: ['DeleteItem'], keys: ['pinTries'] },
      // The transaction PIN's version as compared, checked in the authorization's transaction.
      { actions: ['ConditionCheckItem'], keys: ['user'] },
      // An SMS-strength session's payments of the day in the currency, read and replaced (contract 3.15).
      { actions: ['GetItem', 'PutItem'], keys: ['smsPayments'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },

  // Reads the token user's own record and pending phone change.
  // A held deletion or profile change that is due lands at the read (contract 3.15, second reading).
  userProfile: {
    table: [
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user'] },
      { actions: ['Query'], keys: ['pendingChange', 'session', 'userDevice'] },
      { actions: ['GetItem', 'UpdateItem'], keys: ['phoneClaim'] },
      // And a held profile change that is due: the record's fields, a new email's claim taken, the old one given up.
      { actions: ['UpdateItem'], keys: ['user'], attributes: [...DELETION_USER, 'first_name', 'last_name', 'email', 'birth_date'] },
      { actions: ['PutItem', 'DeleteItem'], keys: ['emailClaim'] },
      { actions: ['PutItem'], keys: ['erasureDue', 'erasureCompany'] },
      END_CHANGE,
      { actions: ['DeleteItem'], keys: ['userDevice', 'deviceIndex', 'phoneChangeIndex', 'pendingChange'] },
      recordUseAndEndSessions,
    ],
    // A DPoP proof refused carries a fresh nonce (DPoP-Nonce), keyed by the server secret (contract 3.17).
    secret: true,
    signingKeys: 'verify',
  },
  // Reads the token user's whole partition (their export), and writes nothing but a session's use.
  // From an SMS-strength session the export waits (contract 3.15, second reading): its change held, with its notice and SMS.
  userExport: {
    table: [
      readCompanyAndSession,
      { actions: ['Query'], keys: ['user'] },
      { actions: ['GetItem'], keys: ['user'] },
      HOLD_CHANGE,
      { actions: ['ConditionCheckItem'], keys: ['changeFreeze'] },
      { actions: ['PutItem'], keys: ['notification'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      recordSessionUse,
    ],
    // The warning SMS is sealed into the queue under a key derived from the server secret.
    secret: true,
    queue: 'send',
    signingKeys: 'verify',
  },
  // The user's own fields and nothing else of the record (not a status, a phone, a PIN or a hash);
  // a new email's claim taken and the old one given up.
  userProfileUpdate: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user'] },
      {
        actions: ['UpdateItem'],
        keys: ['user'],
        attributes: [
          'first_name',
          'last_name',
          'email',
          'image',
          'birth_date',
          'location_point',
          'updated_at',
          'status_id',
          'session_version',
        ],
      },
      { actions: ['PutItem', 'DeleteItem'], keys: ['emailClaim'] },
      // From an SMS-strength session the names, birth date and email wait (contract 3.15, second
      // reading), with their notice and SMS; a new email's claim checked free of other users.
      HOLD_CHANGE,
      { actions: ['ConditionCheckItem'], keys: ['changeFreeze', 'emailClaim'] },
      { actions: ['PutItem'], keys: ['notification'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      recordSessionUse,
    ],
    // The Idempotency-Key's answer is stored sealed under a key derived from the server secret, and so is the warning SMS into the queue.
    secret: true,
    queue: 'send',
    signingKeys: 'verify',
  },
  // A new number: its claim taken (or moved from an unproven holder), the old one freed, the proof
  // used up, the old number's login code deleted; the user's phone fields (and an unproven holder's
  // status) and nothing else of a record; a notice; the other sessions (and the holder's) ended; the
  // old number's warning queued.
  userPhoneChange: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user', 'phoneClaim', 'pendingChange'] },
      {
        actions: ['UpdateItem'],
        keys: ['user', 'unreadCount', 'pinTries'],
        attributes: [
          ...UNREAD,
          ...PIN_TRIES,
          ...PIN_REHASH.login,
          'dial_code',
          'phone_number',
          'phone_e164',
          'phone_verified',
          'status_id',
          'session_version',
          'updated_at',
          'phone_changed_from',
          'phone_changed_by_request',
          'phone_changed_at',
        ],
        returns: TRIES_READ_BACK,
      },
      { actions: ['PutItem'], keys: ['phoneClaim', 'notification'] },
      { actions: ['DeleteItem'], keys: ['phoneClaim', 'phoneProof', 'otp', 'emailClaim'] },
      // The holder's devices and passkeys: a live holder is never displaced by a reclaim (contract 3.15; a passkey used in 90 days keeps it live).
      { actions: ['Query'], keys: ['session', 'userDevice', 'userPasskey'] },
      // No held change while staff froze them (contract 3.15).
      { actions: ['ConditionCheckItem'], keys: ['changeFreeze'] },
      recordUseAndEndSessions,
      // From a session begun by OTP login (contract 3.11, round 5): the login PIN's try (above) and its
      // count cleared; the pending change stored, its index by the new number taken (a replaced one's
      // deleted), the new number's claim checked free.
      { actions: ['PutItem'], keys: ['pendingChange', 'phoneChangeIndex'] },
      { actions: ['DeleteItem'], keys: ['phoneChangeIndex', 'pinTries'] },
      { actions: ['ConditionCheckItem'], keys: ['phoneClaim'] },
    ],
    secret: true,
    queue: 'send',
    signingKeys: 'verify',
  },
  // A pending phone change cancelled: the change marked (and nothing else of the user's partition),
  // its index item deleted, a notice.
  userPhoneChangeCancel: {
    table: cancelPendingChange,
    secret: true,
    signingKeys: 'verify',
  },
  userChangesCancel: {
    table: cancelPendingChange,
    secret: true,
    signingKeys: 'verify',
  }, // "Not me" (contract 3.15): the user's pending changes ended, the devices on probation removed with
  // their sessions and one off the count each, every other session ended, notice 12.
  // Passkeys (contract 3.16): the options store a challenge; registration verifies against it, then
  // takes it, claims the credential id, stores the passkey under the user's count, with notice 13.
  passkeysRegisterOptions: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user'] },
      { actions: ['Query'], keys: ['userPasskey'] },
      { actions: ['PutItem'], keys: ['webauthnChallenge'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
  passkeysRegister: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['webauthnChallenge'] },
      { actions: ['DeleteItem'], keys: ['webauthnChallenge'] },
      // A retry whose challenge its first run took (its answer lost) finds the passkey that run added.
      { actions: ['GetItem'], keys: ['passkeyCredential', 'userPasskey'] },
      { actions: ['PutItem'], keys: ['passkeyCredential', 'userPasskey', 'notification'] },
      { actions: ['UpdateItem'], keys: ['userPasskeyCount'], attributes: ['passkey_count'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      // An employee's own passkey is recorded in the staff chain with its reason (self_passkey_add).
      ...appendStaffRecord,
      { actions: ['PutItem'], keys: ['staffAction'] },
      recordSessionUse,
    ],
    // A DPoP proof refused carries a fresh nonce (DPoP-Nonce), keyed by the server secret (contract 3.17).
    secret: true,
    signingKeys: 'verify',
  },
  passkeys: {
    table: [readCompanyAndSession, { actions: ['Query'], keys: ['userPasskey'] }, recordSessionUse],
    // A DPoP proof refused carries a fresh nonce (DPoP-Nonce), keyed by the server secret (contract 3.17).
    secret: true,
    signingKeys: 'verify',
  },
  // A removal: the passkey, its claim and the count, notice 14; then every session it began ends.
  passkeysRemove: {
    table: [
      keepAndRecallAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['userPasskey'] },
      { actions: ['DeleteItem'], keys: ['userPasskey', 'passkeyCredential'] },
      { actions: ['UpdateItem'], keys: ['userPasskeyCount'], attributes: ['passkey_count'] },
      { actions: ['PutItem'], keys: ['notification'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      { actions: ['Query'], keys: ['session'] },
      // An employee's removal is recorded in the staff chain with its reason (self_passkey_remove).
      ...appendStaffRecord,
      { actions: ['PutItem'], keys: ['staffAction'] },
      recordUseAndEndSessions,
    ],
    // A DPoP proof refused carries a fresh nonce (DPoP-Nonce), keyed by the server secret (contract 3.17).
    secret: true,
    signingKeys: 'verify',
  },
  // With a phone: its claim and the holder's passkeys (else ids derived by HMAC from the secret).
  passkeysLoginOptions: {
    table: [
      keepAnswers,
      { actions: ['GetItem'], keys: ['company', 'phoneClaim'] },
      { actions: ['Query'], keys: ['userPasskey'] },
      { actions: ['PutItem'], keys: ['webauthnChallenge'] },
    ],
    secret: true,
  },
  // As a PIN login on a settled device (loginPin), the challenge taken and the counter moved in the grant.
  passkeysLogin: {
    table: [
      spendProofs,
      keepAnswers,
      { actions: ['GetItem'], keys: ['company', 'webauthnChallenge', 'passkeyCredential', 'userPasskey', 'user', 'deviceIndex'] },
      { actions: ['Query'], keys: ['pendingChange', 'userPasskey', 'session'] },
      {
        actions: ['DeleteItem'],
        keys: ['webauthnChallenge', 'userPasskey', 'passkeyCredential', 'deviceIndex', 'userDevice', 'phoneChangeIndex'],
      },
      // With not_me: 1, as user/security/not_me: changes ended, devices on probation and young passkeys removed, other sessions ended.
      END_CHANGE,
      { actions: ['UpdateItem'], keys: ['userPasskeyCount'], attributes: ['passkey_count'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      recordUseAndEndSessions,
      { actions: ['PutItem'], keys: ['session', 'notification'] },
      {
        actions: ['UpdateItem'],
        keys: ['user', 'userPasskey', 'userDevice'],
        attributes: [
          'status_id',
          'session_version',
          'strong_login_at',
          'counter',
          'last_used_at',
          'cloned_at',
          'probation_held',
          'probation_since',
          // not_me: 1 removes the devices on probation, one off the count each.
          'device_count',
        ],
      },
      { actions: ['UpdateItem'], keys: ['deviceIndex'], attributes: ['probation_held', 'probation_since'] },
    ],
    secret: true,
    signingKeys: 'sign',
  },

  userSecurityNotMe: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user', 'deviceIndex'] },
      { actions: ['Query'], keys: ['pendingChange', 'session'] },
      END_CHANGE,
      { actions: ['DeleteItem'], keys: ['deviceIndex', 'userDevice', 'phoneChangeIndex'] },
      { actions: ['UpdateItem'], keys: ['user'], attributes: ['device_count'] },
      { actions: ['PutItem'], keys: ['notification'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      // Passkeys registered lately, removed (contract 3.15, second reading).
      { actions: ['Query'], keys: ['userPasskey'] },
      { actions: ['DeleteItem'], keys: ['userPasskey', 'passkeyCredential'] },
      { actions: ['UpdateItem'], keys: ['userPasskeyCount'], attributes: ['passkey_count'] },
      recordUseAndEndSessions,
    ],
    secret: true,
    signingKeys: 'verify',
  },

  // A deletion: the user's status and erasure time (and no other field of the record), every session
  // and device gone, the phone and email claims freed, the user in the company's due list.
  userDelete: {
    table: [
      keepAndRecallAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user', 'phoneClaim', 'emailClaim'] },
      { actions: ['Query'], keys: ['session', 'userDevice', 'pendingChange'] },
      { actions: ['UpdateItem'], keys: ['user'], attributes: DELETION_USER },
      { actions: ['PutItem'], keys: ['erasureDue', 'erasureCompany'] },
      // Every live pending change ends with the account (void), a phone change's index by the new number freed.
      {
        actions: ['UpdateItem'],
        keys: ['pendingChange'],
        attributes: ['ended_reason', 'ended_at', 'ended_by_request', 'change_id', 'expires_at'],
      },
      { actions: ['DeleteItem'], keys: ['userDevice', 'deviceIndex', 'phoneClaim', 'emailClaim', 'phoneChangeIndex'] },
      // An employee's deletion keeps the company's count of active admins (contract 3.14): an admin's
      // seat given up with one fewer, any other employee's seat checked absent.
      { actions: ['DeleteItem', 'ConditionCheckItem'], keys: ['adminSeat'] },
      { actions: ['UpdateItem'], keys: ['adminCount'] },
      // From an SMS-strength session the deletion waits (contract 3.15, second reading), with its notice
      // and SMS; the claims of a held one are kept (the phone's marked); the held one deleted as it lands.
      HOLD_CHANGE,
      { actions: ['ConditionCheckItem'], keys: ['changeFreeze'] },
      { actions: ['PutItem'], keys: ['notification'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      recordUseAndEndSessions,
    ],
    secret: true,
    queue: 'send',
    signingKeys: 'verify',
  },
  // The eraser, run by a schedule: the due lists read, each due user made ERASED and their items
  // deleted (their partition, their device's nonces, their codes and counters when the phone is no
  // one's, their referral code and claims), a referrer's notice that named them blanked, and the
  // record replaced by what is kept. No secret, no token, no SMS.
  ...require('./permissions-admin.cjs'),
  accountsErase: {
    table: [
      { actions: ['Query'], keys: ['erasureCompany', 'erasureDue', 'user', 'notification', 'deviceNonce', 'userPasskey'] },
      { actions: ['GetItem'], keys: ['user', 'phoneClaim'] },
      {
        actions: ['UpdateItem'],
        keys: ['user', 'notification'],
        attributes: ['status_id', 'erased_at', 'erase_after', 'notification_body', 'referred_user_id'],
      },
      { actions: ['PutItem'], keys: ['user'] },
      { actions: ['DeleteItem'], keys: ['erasureDue', 'referralCode', 'phoneClaim', 'emailClaim'] },
      {
        actions: ['BatchWriteItem'],
        // Ended sessions are kept, marked, until their TTL: the partition's erasure takes them, and a
        // pending phone change the deletion voided, and the user's copies of staff actions on them
        // (the company's staff chain keeps the records, user ids and reasons, never a name or number).
        keys: [
          'staffAction',
          'notification',
          'unreadCount',
          'referralCount',
          'pinTries',
          'deviceNonce',
          'otp',
          'phoneSendLimit',
          'phoneFailures',
          'session',
          'pendingChange',
          // Passkeys (contract 3.16): each one, the user's count, and the company's claim of its credential id.
          'userPasskey',
          'userPasskeyCount',
          'passkeyCredential',
        ],
      },
    ],
  },
  // Invoked by the payment service: one conditional update of an authorization, and nothing else.
  // An authorization spent, and its user's status read: only an active user's approval pays.
  redeemAuthorization: {
    table: [
      { actions: ['UpdateItem'], keys: ['authorization'] },
      { actions: ['GetItem'], keys: ['user'] },
    ],
  },
  // The events' publisher, run by the table's stream: reads the stream (no item of the table), puts
  // events on the bus, sets aside what the bus refused (and Lambda, as this role, the stream's batches
  // given up on) in the events' dead-letter queue. No secret: an event holds no personal value.
  eventsPublish: {
    stream: 'read',
    events: 'publish',
    deadLetters: 'events',
  },
  notFound: {},
  // The console's page and its files (functions/console.ts): fixed text, no AWS call at all.
  console: {},
};
