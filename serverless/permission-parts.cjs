// The grants many functions' roles share (serverless/permissions.cjs, permissions-admin.cjs).

// Every function that takes a token records its use: last_used_at of a session and nothing else,
// not even the TTL attribute, which would let the role delete any item by expiring it.
const recordSessionUse = { actions: ['UpdateItem'], keys: ['session'], attributes: ['last_used_at'] };
// A function that ends sessions marks them (why and when, which the stream publishes as session.ended,
// lib/store/session-store.ts) and deletes none: the same update, with those two attributes.
const recordUseAndEndSessions = { actions: ['UpdateItem'], keys: ['session'], attributes: ['last_used_at', 'ended_reason', 'ended_at_ms'] };
// Every POST takes an Idempotency-Key: its record is taken (a conditional put), then completed or
// released (an update).
const keepAnswers = { actions: ['PutItem', 'UpdateItem'], keys: ['idempotencyRecord'] };
// A function that may end its caller's own session (endsOwnSession) reads the key's record too: the
// retry of such a request finds its session over and is answered its first outcome from the record.
const keepAndRecallAnswers = { actions: ['PutItem', 'UpdateItem', 'GetItem'], keys: ['idempotencyRecord'] };
// A DPoP proof's jti spent once (contract 3.17, lib/store/dpop-store.ts): a conditional put, on the
// routes that answer tokens (answersCredential); on every route of a stage with DPOP_NONCE=1
// (serverless/stack.cjs adds it there).
const spendProofs = { actions: ['PutItem'], keys: ['dpopProof'] };
// Every call reads its company (CompanyID) and, given a token, the session.
const readCompanyAndSession = { actions: ['GetItem'], keys: ['company', 'session'] };

// The staff record (API contract 3.14, round 6): every back-office call reads its company's chain
// head, and one that records moves it (its seq, hash and time alone) and puts the record at its place.
const appendStaffRecord = [
  { actions: ['GetItem'], keys: ['staffChainHead'] },
  { actions: ['UpdateItem'], keys: ['staffChainHead'], attributes: ['seq', 'hash', 'at_ms'] },
  { actions: ['PutItem'], keys: ['staffChain'] },
];

// What the PIN checks write in a user's partition (lib/store/pin-store.ts), where IAM sees no sort
// key: an update there may name these and no other attribute of the user, so a function that counts
// PIN tries cannot set a status, a phone, a password or another PIN's hash. Read from the code's
// update and condition expressions, the paths no flow of the permissions test takes included.
/** A try taken, given back, or locked (takePinTry, givePinTryBack, markPinLocked). */
const PIN_TRIES = ['tries', 'last_try_at', 'locked_at'];
/** A notice's unread count (notification-store.ts). */
const UNREAD = ['unread'];
/** A PIN's hash made again under the current key version after a right PIN (replacePinHash). */
const PIN_REHASH = { login: ['login_pin_hash'], transaction: ['transaction_pin_hash'] };
/** takePinTry reads back the tries it counted (ReturnValues ALL_NEW): of a partition these roles may GetItem anyway. */
const TRIES_READ_BACK = ['ALL_NEW'];
/** A day's wrong PINs (takeDailyPinTry, giveDailyPinTryBack): counted in a window and given back, the window opened anew. */
const PIN_DAILY = [
  { actions: ['UpdateItem'], keys: ['pinDaily'], attributes: ['tries', 'window_start', 'expires_at'], returns: ['ALL_NEW'] },
  { actions: ['PutItem'], keys: ['pinDaily'] },
];
/** A change held (lib/pending-changes/held-change.ts): the user's change of its kind read and replaced (its notice: the caller's grants). */
const HOLD_CHANGE = { actions: ['GetItem', 'PutItem'], keys: ['pendingChange'] };
/** The same, by a caller that read the user's changes itself (its Query; a round that lost a race reads them so again). */
const HOLD_KNOWN_CHANGE = { actions: ['PutItem'], keys: ['pendingChange'] };
/** A pending change ended (cancelled, void, superseded): the change marked, a phone change's index freed. */
const END_CHANGE = {
  actions: ['UpdateItem'],
  keys: ['pendingChange'],
  attributes: ['ended_reason', 'ended_at', 'ended_by_request', 'change_id', 'expires_at'],
};

/** The user record as a deletion leaves it (lib/store/erasure-store.ts userDeletionChange). */
const DELETION_USER = ['status_id', 'erase_after', 'deleted_at', 'updated_at', 'device_count', 'deleted_device_keys', 'session_version'];

module.exports = {
  DELETION_USER,
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
};
