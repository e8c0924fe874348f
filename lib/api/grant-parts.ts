// The grants many endpoints' roles share (each endpoint's `grants`, lib/api/*-endpoint.ts; the
// functions with no route in serverless/permissions.cjs), in the form serverless/permissions.cjs
// describes: serverless/stack.cjs builds one IAM role per function from them.

// Every function that takes a token records its use: last_used_at of a session and nothing else,
// not even the TTL attribute, which would let the role delete any item by expiring it.
export const recordSessionUse = { actions: ['UpdateItem'], keys: ['session'], attributes: ['last_used_at'] };
// A function that ends sessions marks them (why and when, which the stream publishes as session.ended,
// lib/store/session-store.ts) and deletes none: the same update, with those two attributes.
export const recordUseAndEndSessions = {
  actions: ['UpdateItem'],
  keys: ['session'],
  attributes: ['last_used_at', 'ended_reason', 'ended_at_ms'],
};
// Every POST takes an Idempotency-Key: its record is taken (a conditional put), then completed or
// released (an update).
export const keepAnswers = { actions: ['PutItem', 'UpdateItem'], keys: ['idempotencyRecord'] };
// A function that may end its caller's own session (endsOwnSession) reads the key's record too: the
// retry of such a request finds its session over and is answered its first outcome from the record.
export const keepAndRecallAnswers = { actions: ['PutItem', 'UpdateItem', 'GetItem'], keys: ['idempotencyRecord'] };
// A DPoP proof's jti spent once (contract 3.17, lib/store/dpop-store.ts): a conditional put, on the
// routes that answer tokens (answersCredential); on every route of a stage with DPOP_NONCE=1
// (serverless/stack.cjs adds it there).
export const spendProofs = { actions: ['PutItem'], keys: ['dpopProof'] };
// Every call reads its company (CompanyID) and, given a token, the session.
export const readCompanyAndSession = { actions: ['GetItem'], keys: ['company', 'session'] };

// The staff record (API contract 3.14, round 6): every back-office call reads its company's chain
// head, and one that records moves it (its seq, hash and time alone) and puts the record at its place.
export const appendStaffRecord = [
  { actions: ['GetItem'], keys: ['staffChainHead'] },
  { actions: ['UpdateItem'], keys: ['staffChainHead'], attributes: ['seq', 'hash', 'at_ms'] },
  { actions: ['PutItem'], keys: ['staffChain'] },
];
/** Every back-office POST: its key's record kept, its company and session read, its record in the staff chain. */
export const staffCall = [keepAnswers, readCompanyAndSession, ...appendStaffRecord];

// What the PIN checks write in a user's partition (lib/store/pin-store.ts), where IAM sees no sort
// key: an update there may name these and no other attribute of the user, so a function that counts
// PIN tries cannot set a status, a phone, a password or another PIN's hash. Read from the code's
// update and condition expressions, the paths no flow of the permissions test takes included.
/** A try taken, given back, or locked (takePinTry, givePinTryBack, markPinLocked). */
export const PIN_TRIES = ['tries', 'last_try_at', 'last_try_by', 'locked_at'];
/** A notice's unread count (notification-store.ts). */
export const UNREAD = ['unread'];
/** A PIN's hash made again under the current key version after a right PIN (replacePinHash). */
export const PIN_REHASH = { login: ['login_pin_hash'], transaction: ['transaction_pin_hash'] };
/** takePinTry reads back the tally as its try found it (ReturnValues ALL_OLD): of a partition these roles may GetItem anyway. */
export const TRIES_READ_BACK = ['ALL_OLD'];
/** A day's wrong PINs (takeDailyPinTry, giveDailyPinTryBack): counted in a window and given back, the window opened anew. */
export const PIN_DAILY = [
  {
    actions: ['UpdateItem'],
    keys: ['pinDaily'],
    attributes: ['tries', 'window_start', 'expires_at', 'last_try_at', 'last_try_by'],
    returns: ['ALL_OLD'],
  },
  { actions: ['PutItem', 'DeleteItem'], keys: ['pinDaily'] },
];
/** A change held (lib/pending-changes/held-change.ts): the user's change of its kind read and replaced (its notice: the caller's grants). */
export const HOLD_CHANGE = { actions: ['GetItem', 'PutItem'], keys: ['pendingChange'] };
/** The same, by a caller that read the user's changes itself (its Query; a round that lost a race reads them so again). */
export const HOLD_KNOWN_CHANGE = { actions: ['PutItem'], keys: ['pendingChange'] };
/** A pending change ended (cancelled, void, superseded): the change marked, a phone change's index freed. */
export const END_CHANGE = {
  actions: ['UpdateItem'],
  keys: ['pendingChange'],
  attributes: ['ended_reason', 'ended_at', 'ended_by_request', 'change_id', 'expires_at'],
};

/**
 * A phone proof used up (lib/store/proof-store.ts phoneProofConsume): marked used, not deleted, so a late
 * copy of its put cannot store it unused again; the attributes its condition reads and the one it sets.
 */
export const USE_PHONE_PROOF = {
  actions: ['UpdateItem'],
  keys: ['phoneProof'],
  attributes: ['used_at', 'expires_at', 'phone_e164', 'user_type', 'otp_type', 'user_id'],
};
/** A passkey challenge taken by its ceremony (lib/store/passkey-store.ts challengeTake): marked taken, not deleted, likewise. */
export const TAKE_CHALLENGE = { actions: ['UpdateItem'], keys: ['webauthnChallenge'], attributes: ['taken_at', 'expires_at'] };

/** The user record as a deletion leaves it (lib/store/erasure-store.ts userDeletionChange). */
export const DELETION_USER = [
  'status_id',
  'erase_after',
  'deleted_at',
  'updated_at',
  'device_count',
  'deleted_device_keys',
  'session_version',
];

/** A user's pending change cancelled (contract 3.15; phone/change/cancel of 3.11 and changes/cancel alike). */
export const cancelPendingChange = [
  keepAnswers,
  readCompanyAndSession,
  { actions: ['Query'], keys: ['pendingChange'] },
  {
    actions: ['UpdateItem'],
    keys: ['pendingChange', 'unreadCount'],
    attributes: [...UNREAD, ...END_CHANGE.attributes],
  },
  { actions: ['PutItem'], keys: ['notification'] },
  { actions: ['DeleteItem'], keys: ['phoneChangeIndex'] },
  recordSessionUse,
];

/** Staff who strip the owner's defences (contract 3.15, second reading): SMS-strength changes ended, new ones frozen for 72 h. */
export const STAFF_FREEZE = [
  { actions: ['Query'], keys: ['pendingChange'] },
  END_CHANGE,
  { actions: ['DeleteItem'], keys: ['phoneChangeIndex'] },
  { actions: ['PutItem'], keys: ['changeFreeze'] },
];

// An employee's role, with who gave it and since when (lib/store/staff-store.ts employeeRoleChange);
// its condition reads the type and the status.
export const ROLE = ['role', 'role_since', 'role_granted_by', 'role_approved_by', 'updated_at', 'user_type', 'status_id'];
// A grant approved once, while unexpired (lib/store/staff-store.ts grantApproval).
export const GRANT_APPROVAL = ['status', 'approved_by', 'approved_at', 'expires_at'];
// The settings company:update writes, never the status: IAM refuses an update naming it.
export const COMPANY_SETTINGS = [
  'name',
  'require_verified_phone',
  'sms_countries',
  'sms_text',
  'sms_per_hour',
  'sms_per_prefix_per_hour',
  'sends_per_address_per_hour',
  'verifies_per_address',
  'updated_at',
];

/** No held change while staff froze the user's changes (contract 3.15): the freeze checked absent in the change's transaction. */
export const checkChangesNotFrozen = { actions: ['ConditionCheckItem'], keys: ['changeFreeze'] };

/** A change held from an SMS-strength session (contract 3.15) with its notice: the change written unless frozen, the notice counted unread. */
export const holdChangeWithNotice = [
  HOLD_CHANGE,
  checkChangesNotFrozen,
  { actions: ['PutItem'], keys: ['notification'] },
  { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
];

/** A new PIN held from an SMS-strength session, or superseding one that waited (contract 3.15); the other sessions ended when it lands. */
export const holdOrEndPinChange = [HOLD_KNOWN_CHANGE, END_CHANGE, checkChangesNotFrozen, recordUseAndEndSessions];
