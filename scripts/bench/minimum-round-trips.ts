import type { FunctionName, InvokedFunctionName } from '../../lib/api/endpoints.js';

// The fewest DynamoDB requests each endpoint and outcome needs, with a warm company cache and
// no Authorization header unless the outcome says so. docs/performance.md explains each one;
// the bench checks every measured call against this table, and measures an endpoint once it has a
// scenario (scripts/bench/scenarios.ts) and its minimums here: a new endpoint needs neither to deploy. An ended session is marked (its item
// updated with ended_reason, 1 WRU as its delete was), not deleted: the stream then says why it ended.

export interface Minimum {
  /** DynamoDB HTTP requests per call. */
  requests: number;
  /** Of those, at most how many wait for an earlier one (the rest run side by side). */
  sequential: number;
  /** The requests, in order; "a | b" run side by side. */
  work: string;
  /**
   * The events of API contract 3.13 the outcome emits, if any. They add no DynamoDB request and no
   * write unit to the call: eventsPublish reads them from the table's stream (scripts/bench/events-publish.ts).
   */
  events?: string;
}

export const MINIMUM_ROUND_TRIPS: Partial<Record<FunctionName | InvokedFunctionName, Record<string, Minimum>>> = {
  userRegister: {
    'new user': {
      requests: 1,
      sequential: 1,
      work: 'TransactWriteItems (user, phone, email, referral code, session)',
      events: 'user.registered (+ device.added with a device)',
    },
    'new user, proven phone': { requests: 1, sequential: 1, work: 'TransactWriteItems (+ the proof used up)', events: 'user.registered' },
    // The holder before their sessions (round 5): a session granted between the two reads changes the version the takeover checks.
    // Round 6: a live holder is never displaced (a settled device, a passkey used lately): their devices and passkeys read too.
    'phone reclaimed from an unverified holder': {
      requests: 7,
      sequential: 6,
      work:
        "TransactWriteItems (refused on the phone claim); GetItem phone claim; GetItem holder; Query holder sessions; Query the holder's devices | Query the holder's passkeys; " +
        "TransactWriteItems (claims moved, holder status 3, holder's sessions marked ended, proof used up)",
      events: "user.registered, session.ended (reclaimed) per holder's session",
    },
    'new user, referred': {
      requests: 2,
      sequential: 2,
      work: 'GetItem referral code; TransactWriteItems (+ a shard of the referrer count, notification, unread count)',
      events: 'user.registered',
    },
    'duplicate phone': { requests: 1, sequential: 1, work: 'TransactWriteItems, cancelled on the phone claim' },
    'unknown referral code': { requests: 1, sequential: 1, work: 'GetItem referral code' },
  },
  loginPhone: {
    'first send in window': {
      requests: 8,
      sequential: 4,
      work:
        'GetItem phone claim | GetItem pending change index by the number | UpdateItem address hour | GetItem phone failures; UpdateItem phone counters; ' +
        'UpdateItem company hour | UpdateItem number range hour; PutItem code',
    },
    'later send in window': {
      requests: 9,
      sequential: 5,
      work:
        'GetItem phone claim | GetItem pending change index by the number | UpdateItem address hour | GetItem phone failures; UpdateItem new window (refused, returns counters); ' +
        'UpdateItem in window; UpdateItem company hour | UpdateItem number range hour; PutItem code',
    },
    'too soon (429)': {
      requests: 5,
      sequential: 2,
      work: 'GetItem phone claim | GetItem pending change index by the number | UpdateItem address hour | GetItem phone failures; UpdateItem phone counters (refused)',
    },
    // Contract 3.11 amended: any number may be the new number of a due pending change (held by no one, or
    // by a holder who never proved it: the completion reclaims it), so its index item is read beside the claim.
    'unregistered phone': {
      requests: 8,
      sequential: 4,
      work: 'as a first send (the pending change index read beside the claim), the stored code one no code matches, and no SMS',
    },
    'destination refused (400, code 15)': { requests: 0, sequential: 0, work: 'none: checked against the numbering plan before any limit' },
  },
  verifyOtp: {
    // A recovery's completion (contract 3.14): the code's tries, then the move with the devices and sessions it ends.
    'login completing a pending change': {
      requests: 12,
      sequential: 6,
      work:
        'UpdateItem tries of the address | code | phone failures (side by side), UpdateItem code used; DeleteItem phone failures; ' +
        'GetItem user | pending change (consistent); Query sessions | devices | passkeys (a recovery removes them, contract 3.15); TransactWriteItems (the move: claims, record, change, index, old code, notice 6, sessions ended, devices removed); TransactWriteItems (the new session)',
      events: 'user.phone_changed, session.ended (recovered) per session, device.removed per device',
    },
    // Count first, compare second: every attempt takes its tries before the code is looked at.
    'wrong code': {
      requests: 3,
      sequential: 1,
      work: 'UpdateItem address window | UpdateItem phone try (ADD) | UpdateItem code try (ADD, returns the code); compared in memory',
    },
    'right login code': {
      requests: 6,
      sequential: 3,
      work:
        'UpdateItem address window | UpdateItem phone try | UpdateItem code try; UpdateItem code used up | DeleteItem phone try given back; ' +
        'TransactWriteItems (session, user: active? phone verified, session count)',
    },
    'code already used': {
      requests: 4,
      sequential: 2,
      work: 'UpdateItem address window | UpdateItem phone try | UpdateItem code try (refused: used); DeleteItem phone try given back',
    },
  },
  loginPin: {
    // The grant in steps (lib/sessions/session-grant.ts grantInSteps): 6 WRU where a transaction of the same four items took 10; the session, then the user, then the device and the tally.
    'right PIN': {
      requests: 9,
      sequential: 6,
      work:
        "GetItem device; PutItem nonce (if absent) | GetItem user | Query the user's devices and pending changes (one Query, contract 3.15); " +
        'UpdateItem PIN try (ADD; a device bound before the latest right PIN takes no day’s try); PutItem session with its acr; ' +
        "UpdateItem user (active? same PIN version, session count, when the right and strong PIN came); UpdateItem the user's listing of the device (still bound, its last use) | DeleteItem tries",
    },
    'wrong PIN (400, code 17)': {
      requests: 5,
      sequential: 3,
      work: "GetItem device; PutItem nonce | GetItem user | Query the user's devices and pending changes; UpdateItem PIN try (ADD); compared in memory",
    },
    'PIN locked (400, code 18)': {
      requests: 5,
      sequential: 3,
      work: "GetItem device; PutItem nonce | GetItem user | Query the user's devices and pending changes; UpdateItem PIN try (refused: locked)",
    },
    'bad signature (401)': { requests: 1, sequential: 1, work: 'GetItem device; the signature checked in memory, nothing written' },
    'a held PIN due: put in place, then right': {
      requests: 15,
      sequential: 10,
      work:
        "GetItem device; PutItem nonce | GetItem user | Query devices and changes; GetItem user | Query sessions | Query the PIN's tallies; " +
        'TransactWriteItems (the new hash and version, tallies cleared, the held change deleted, notice, sessions begun before it ended); ' +
        'Query sessions (any granted while it worked); GetItem user (the PIN as it now is); UpdateItem PIN try; PutItem session; UpdateItem user; UpdateItem device | DeleteItem tries',
      events: 'session.ended (pin_changed) per session begun before the change took effect',
    },
  },
  devices: {
    'own devices': {
      requests: 2,
      sequential: 2,
      work: "GetItem session (consistent); Query the user's devices and pending changes (a held removal due is put in place first)",
    },
  },
  devicesRemove: {
    'a settled device, held (an SMS-strength session)': {
      requests: 6,
      sequential: 4,
      work:
        "GetItem session; GetItem device | Query the device's sessions | GetItem user (its number); GetItem the user's change of the kind; " +
        'TransactWriteItems (the change, notice 11 and unread count); the number warned by SMS',
      events: 'user.change_pending (device_remove)',
    },
    'a device with one session': {
      requests: 5,
      sequential: 4,
      work:
        "GetItem session; GetItem device | Query the device's sessions; TransactWriteItems (device, list item deleted, sessions marked ended, count); " +
        "Query the device's sessions (any granted while it worked)",
      events: 'device.removed, session.ended (device_removed)',
    },
  },
  changePin: {
    'held (an SMS-strength session)': {
      requests: 6,
      sequential: 4,
      work:
        'GetItem session; GetItem user (consistent) | Query pending changes; UpdateItem PIN try (ADD) | UpdateItem day’s try; ' +
        'TransactWriteItems (the change with the new hash, notice 11 and unread count, tries cleared, the day’s try given back); the number warned by SMS',
      events: 'user.change_pending (login_pin or transaction_pin)',
    },
    'PIN changed': {
      requests: 10,
      sequential: 6,
      work:
        'GetItem session; GetItem user (consistent) | Query pending changes; UpdateItem PIN try (ADD) | UpdateItem day’s try; ' +
        "GetItem user | Query sessions | Query the PIN's tallies; " +
        'TransactWriteItems (new hash and PIN version, every tally cleared, the day’s try given back, notice and unread count, other sessions marked ended); ' +
        'Query sessions (any granted while it worked)',
      events: 'session.ended (pin_changed) per other session',
    },
    'wrong current PIN (400, code 17)': {
      requests: 5,
      sequential: 3,
      work: 'GetItem session; GetItem user (consistent) | Query pending changes; UpdateItem PIN try (ADD) | UpdateItem day’s try; compared in memory',
    },
  },
  resetPin: {
    'held (a fresh strong session, no phone proof)': {
      requests: 4,
      sequential: 3,
      work: 'GetItem session; GetItem user | Query pending changes; TransactWriteItems (the change with the new hash, notice 11 and unread count); the number warned by SMS',
      events: 'user.change_pending (login_pin or transaction_pin)',
    },
    'with a phone proof': {
      requests: 8,
      sequential: 5,
      work:
        "GetItem session; GetItem user (its phone) | Query pending changes; GetItem user | Query sessions | Query the PIN's tallies; " +
        'TransactWriteItems (proof used up, new hash, tallies cleared, notice, other sessions marked ended); Query sessions',
      events: 'session.ended (pin_changed) per other session',
    },
    'no proof (400, code 14)': { requests: 1, sequential: 1, work: 'GetItem session' },
  },
  userChangesCancel: {
    'a held change cancelled': {
      requests: 3,
      sequential: 3,
      work: 'GetItem session; Query pending changes; TransactWriteItems (the change marked cancelled, notice 10 and unread count)',
      events: 'user.change_cancelled',
    },
  },
  userSecurityNotMe: {
    'one held change cancelled': {
      requests: 6,
      sequential: 5,
      work:
        "GetItem session; GetItem user | Query the user's devices and pending changes; Query the user's passkeys (the young ones go, contract 3.15); " +
        'TransactWriteItems (changes marked cancelled, devices on probation removed with their sessions, notice 12); Query sessions, the others ended',
      events: 'user.change_cancelled (not_me) per change, device.removed per device, session.ended (not_me) per session',
    },
  },
  // Passkeys (contract 3.16): a challenge stored by one conditional PutItem, taken in the ceremony's transaction.
  passkeysRegisterOptions: {
    'creation options': {
      requests: 4,
      sequential: 3,
      work: "GetItem session; GetItem user | Query the user's passkeys (excluded, at most 10); PutItem challenge (bound to the session)",
    },
  },
  passkeysRegister: {
    registered: {
      requests: 3,
      sequential: 3,
      work:
        'GetItem session; GetItem challenge (read live, the attestation verified); ' +
        'TransactWriteItems (challenge taken, credential id claimed, passkey stored under the count, notice 13)',
      events: 'passkey.added',
    },
  },
  passkeysLoginOptions: {
    'no phone typed (discoverable)': { requests: 1, sequential: 1, work: 'PutItem challenge' },
  },
  passkeysLogin: {
    // As a PIN login on a settled device (loginPin / right PIN), the assertion in place of the signed PIN.
    'right assertion': {
      requests: 6,
      sequential: 4,
      work:
        "GetItem challenge | GetItem credential claim; GetItem passkey; GetItem user | Query the user's devices and pending changes; " +
        "TransactWriteItems (challenge taken, counter and last use, session, the user's strong login)",
    },
    'right assertion, bound (DPoP)': {
      requests: 7,
      sequential: 5,
      work: "PutItem the proof's jti (once, contract 3.17); then as a right assertion, the session bound to the proof's key",
    },
  },
  stepUp: {
    'stepped up': {
      requests: 7,
      sequential: 5,
      work:
        "GetItem session; GetItem device; PutItem nonce | GetItem user; UpdateItem PIN try (the device's tally); " +
        'UpdateItem session (auth_at, only while live, strong, on that device) | DeleteItem tries',
    },
  },
  referralProgram: {
    // The account rows before it left a held change and its notices in these users' partitions (contract 3.15):
    // the Query of the user and its count shards reads past them, a page more each.
    'own list, first page': {
      requests: 5,
      sequential: 4,
      work: 'GetItem session (consistent); Query user and count shards (its pages) | Query notifications (consistent)',
    },
    'own list, next page': {
      requests: 3,
      sequential: 2,
      work: 'GetItem session (consistent); Query user and count shards | Query notifications (consistent)',
    },
    "another user's list (403)": { requests: 1, sequential: 1, work: 'GetItem session (consistent)' },
  },
  notifications: {
    'own list, first page': {
      requests: 3,
      sequential: 2,
      work: 'GetItem session (consistent); Query notifications (consistent) | Query unread count shards (consistent)',
    },
    'own list, next page': {
      requests: 3,
      sequential: 2,
      work: 'GetItem session (consistent); Query notifications (consistent) | Query unread count shards (consistent)',
    },
  },
  notificationsRead: {
    'by id': {
      requests: 3,
      sequential: 3,
      work: 'GetItem session (consistent); TransactWriteItems (notification read if unread, unread count - 1); Query unread count shards (consistent)',
    },
    'by id, already read': {
      requests: 3,
      sequential: 3,
      work: 'GetItem session (consistent); TransactWriteItems (refused: read); Query unread count shards (consistent)',
    },
    'all (one unread)': {
      requests: 4,
      sequential: 4,
      work: "GetItem session (consistent); Query the user's unread notifications; TransactWriteItems (as by id); Query unread count shards (consistent)",
    },
    'all, none unread': {
      requests: 3,
      sequential: 3,
      work: "GetItem session (consistent); Query the user's unread notifications (none); Query unread count shards (consistent)",
    },
  },
  userProfile: {
    // The user and their pending phone change (contract 3.11, round 5) side by side.
    profile: { requests: 3, sequential: 2, work: 'GetItem session (consistent); GetItem user (consistent) | GetItem pending phone change' },
  },
  // The user is read for the email its change is conditional on, and to answer the whole profile.
  userProfileUpdate: {
    // Contract 3.15, second reading: from an SMS-strength session the names, birth date and email wait (kind profile).
    'names held (an SMS-strength session)': {
      requests: 4,
      sequential: 4,
      work: "GetItem session (consistent); GetItem user (consistent); GetItem the user's pending change of the kind; TransactWriteItems (the change held, notice, unread count); the number warned (SMS, not DynamoDB)",
      events: 'user.change_pending',
    },
    'email held, replacing the names (an SMS-strength session)': {
      requests: 4,
      sequential: 4,
      work: 'as names held: the change held replaces the one that waited (a session as strong)',
      events: 'user.change_pending',
    },
    // The user read again after the refusal: a transaction the SDK ran twice finds its own claim taken (then answered 200).
    'email taken (409, code 7)': {
      requests: 4,
      sequential: 4,
      work: 'GetItem session (consistent); GetItem user (consistent); TransactWriteItems (refused on the claim); GetItem user (consistent)',
    },
  },
  // The user's devices and claims are read to be removed and freed in the deletion's one transaction.
  userDelete: {
    // Contract 3.15, second reading: from an SMS-strength session a deletion waits (kind delete).
    'held (a fresh OTP session)': {
      requests: 4,
      sequential: 4,
      work: "GetItem session (consistent); GetItem user (consistent); GetItem the user's pending change of the kind; TransactWriteItems (the change held, notice, unread count); the number warned (SMS, not DynamoDB)",
      events: 'user.change_pending',
    },
    'session not fresh (400, code 14)': { requests: 1, sequential: 1, work: 'GetItem session (consistent)' },
  },
  // The user and their other sessions read side by side; the sessions read again after the commit for one granted meanwhile.
  // The user before their sessions (round 5): the change conditions on the session_version read first, so no sweep after it.
  userPhoneChange: {
    'number changed': {
      requests: 4,
      sequential: 4,
      work:
        "GetItem session (consistent); GetItem user (consistent); Query the user's sessions (consistent); " +
        "TransactWriteItems (user, new claim, old claim freed, proof used, old number's login code, notice, other sessions marked ended)",
      events: 'user.phone_changed, session.ended (phone_changed) per other session',
    },
    'session not fresh (400, code 14)': { requests: 1, sequential: 1, work: 'GetItem session (consistent)' },
    // A session begun by OTP login (contract 3.11, round 5): the login PIN counted, then the change stored to wait.
    'change pending': {
      requests: 5,
      sequential: 5,
      work:
        'GetItem session (consistent); GetItem user (consistent); GetItem pending change (consistent); UpdateItem PIN try (ADD); ' +
        'TransactWriteItems (pending change, index by the new number, proof used, claim checked free, PIN tries cleared, notice)',
      events: 'user.phone_change_pending',
    },
    'number held by a proven user (409, code 7)': {
      requests: 6,
      sequential: 6,
      work:
        "GetItem session (consistent); GetItem user (consistent); Query the user's sessions (consistent); TransactWriteItems (refused on the claim); " +
        'GetItem phone claim (consistent); GetItem holder (consistent: proven, so no Query of their sessions)',
    },
  },
  userExport: {
    // Contract 3.15, second reading: from an SMS-strength session the export waits (kind export).
    'held (an SMS-strength session)': {
      requests: 5,
      sequential: 5,
      work: "GetItem session (consistent); GetItem user (consistent); GetItem the user's pending change of the kind; GetItem freeze; TransactWriteItems (the change held, notice, unread count); the number warned (SMS, not DynamoDB)",
      events: 'user.change_pending',
    },
  },
  // One conditional write spends the token; reading the session first would add a round trip.
  tokenRefresh: {
    'new pair': { requests: 1, sequential: 1, work: 'UpdateItem session (spends the refresh token, returns the session)' },
    'new pair, with Idempotency-Key': {
      requests: 3,
      sequential: 3,
      work: 'PutItem Idempotency-Key record (claim); UpdateItem session (spends the refresh token); UpdateItem record (the answer, sealed)',
    },
    // Refused by the spend's one write, which returns the session: the successor is derived again, no read, no second write.
    'the token just spent, again within the grace': {
      requests: 1,
      sequential: 1,
      work: 'UpdateItem session (refused, returns it: the spent token is the previous one, within the grace)',
    },
    'reused token (session ended)': {
      requests: 2,
      sequential: 2,
      work: 'UpdateItem session (refused, returns it); TransactWriteItems (session marked ended, notice, unread count)',
      events: 'session.ended (refresh_reuse)',
    },
    'unknown token': { requests: 1, sequential: 1, work: 'UpdateItem session (refused: no such session)' },
    'new pair, bound (DPoP)': {
      requests: 2,
      sequential: 2,
      work: "PutItem the proof's jti (once, contract 3.17); UpdateItem session (spends the refresh token: refused for another key)",
    },
  },
  logout: {
    'this session': {
      requests: 2,
      sequential: 2,
      work: 'GetItem session; UpdateItem session (marked ended, if not already)',
      events: 'session.ended (logout)',
    },
    // N sessions: N conditional UpdateItems of 1 WRU each, 10 at a time (ceil(N / 10) sequential steps), where one
    // BatchWriteItem took 25 deletes: the same write units, more requests from 2 sessions on.
    'other sessions (one)': {
      requests: 3,
      sequential: 3,
      work: "GetItem session; Query the user's sessions; UpdateItem per session (marked ended), 10 at a time",
      events: 'session.ended (logout_all) per session',
    },
    'all sessions (one)': {
      requests: 3,
      sequential: 3,
      work: "GetItem session; Query the user's sessions; UpdateItem per session (marked ended), 10 at a time",
      events: 'session.ended (logout_all) per session',
    },
  },
  // Count first, compare second (lib/pins/pin-attempts.ts): the PIN's try is taken before it is compared.
  transactionAuthorization: {
    'right PIN': {
      requests: 6,
      sequential: 4,
      work:
        'GetItem session (consistent); GetItem user | Query pending changes; UpdateItem PIN try | UpdateItem day’s try (contract 3.15); ' +
        'TransactWriteItems (authorization with its acr, reference claim, tries cleared, the day’s try given back, PIN version checked)',
    },
    'wrong PIN (17)': {
      requests: 5,
      sequential: 3,
      work: 'GetItem session (consistent); GetItem user | Query pending changes; UpdateItem PIN try | UpdateItem day’s try',
    },
    'wrong PIN that locks it (17, attempts_left 0)': {
      requests: 7,
      sequential: 5,
      work:
        'GetItem session (consistent); GetItem user | Query pending changes; UpdateItem PIN try | UpdateItem day’s try; UpdateItem tries marked locked; ' +
        'TransactWriteItems (notification, unread count)',
      events: 'pin.locked',
    },
    'locked (18)': {
      requests: 6,
      sequential: 4,
      work: 'GetItem session (consistent); GetItem user | Query pending changes; UpdateItem PIN try (refused) | UpdateItem day’s try; the day’s try given back',
    },
    'SMS-strength session within the company’s limit': {
      requests: 7,
      sequential: 5,
      work:
        'GetItem session (consistent); GetItem user | Query pending changes; GetItem the day’s SMS payments (checked before the PIN); ' +
        'UpdateItem PIN try | UpdateItem day’s try; TransactWriteItems (authorization, reference claim, tries cleared, the day’s try given back, ' +
        'PIN version checked, the day’s SMS payments by their version)',
    },
  },
  // One conditional write decides every refusal: no read first; a redeem that passes reads its user's status (round 5).
  redeemAuthorization: {
    redeemed: {
      requests: 2,
      sequential: 2,
      work: 'UpdateItem authorization (conditional on every value, unexpired, unredeemed); GetItem user (consistent: still active)',
    },
    'other values (19)': { requests: 1, sequential: 1, work: 'UpdateItem authorization (refused, returns the item for the audit)' },
    'used (19)': { requests: 1, sequential: 1, work: 'UpdateItem authorization (refused, returns the item for the audit)' },
  },
  // The back office (contract 3.14): each call reads the acting employee's role strongly, then records itself in its own transaction
  // after the company's staff chain head (read from the start, beside the gate: how many steps it overlaps is a matter of timing).
  adminUsersSearch: {
    'found by phone': {
      requests: 7,
      sequential: 6,
      work: 'GetItem session (consistent) | GetItem staff chain head (read from the start, beside the gate); GetItem employee (consistent: the role holds at once); UpdateItem lookups of the hour (ADD, counted before compared); GetItem phone claim; GetItem user; TransactWriteItems (the record: company log and user partition)',
      events: 'admin.action',
    },
  },
  adminUsersView: {
    masked: {
      requests: 14,
      sequential: 6,
      work: 'GetItem session (consistent) | GetItem staff chain head (read from the start, beside the gate); GetItem employee (consistent: the role holds at once); UpdateItem lookups of the hour; GetItem user; TransactWriteItems (the record); then side by side: Query devices | Query sessions | GetItem PIN tries x2 | GetItem pending change | Query notices | Query staff actions (consistent) | Query passkeys',
      events: 'admin.action',
    },
  },
  adminUsersSessionsEnd: {
    'every session (one)': {
      requests: 8,
      sequential: 7,
      work: 'GetItem session (consistent) | GetItem staff chain head (read from the start, beside the gate); GetItem employee (consistent: the role holds at once); GetItem user acted on; GetItem user (consistent, its session_version); Query its sessions; Query its pending changes (the freeze ends the SMS-strength ones, contract 3.15); TransactWriteItems (sessions marked ended, version checked, record, notice 8)',
      events: 'session.ended (support) per session, admin.action',
    },
  },
  adminUsersPhoneRecover: {
    started: {
      requests: 7,
      sequential: 6,
      work: 'GetItem session (consistent) | GetItem staff chain head (read from the start, beside the gate); GetItem employee (consistent: the role holds at once); UpdateItem lookups of the hour (ADD, counted before compared); GetItem user (consistent); GetItem pending change (consistent); TransactWriteItems (change awaiting approval, index by the new number, claim checked free, record, notice 8)',
      events: 'admin.action (no phone_change_pending until approved)',
    },
  },
  adminUsersPhoneApprove: {
    approved: {
      requests: 7,
      sequential: 6,
      work: 'GetItem session (consistent) | GetItem staff chain head (read from the start, beside the gate); GetItem employee (consistent: the role holds at once); GetItem user (consistent); GetItem pending change (consistent); GetItem the starter (the approver rules); TransactWriteItems (change and index set to run, notices 9 and 8, record); the old number warned (SMS, not DynamoDB)',
      events: 'user.phone_change_pending (via support), admin.action',
    },
  },
  adminUsersStatus: {
    'disabled (one session)': {
      requests: 9,
      sequential: 8,
      work: 'GetItem session (consistent) | GetItem staff chain head (read from the start, beside the gate); GetItem employee (consistent: the role holds at once); GetItem user acted on; GetItem user (consistent); Query its sessions; GetItem phone claim (consistent); Query its pending changes (the freeze); TransactWriteItems (status, claim status, sessions ended, record, notice 8)',
      events: 'user.disabled, session.ended (disabled) per session, admin.action',
    },
    enabled: {
      requests: 6,
      sequential: 5,
      work: 'GetItem session (consistent) | GetItem staff chain head (read from the start, beside the gate); GetItem employee (consistent: the role holds at once); GetItem user acted on; GetItem phone claim (consistent); TransactWriteItems (status from 2, claim status, record, notice 8)',
      events: 'user.enabled, admin.action',
    },
  },
  adminUsersPhoneCancel: {
    'awaiting approval': {
      requests: 6,
      sequential: 5,
      work: 'GetItem session (consistent) | GetItem staff chain head (read from the start, beside the gate); GetItem employee (consistent: the role holds at once); GetItem user (consistent); GetItem pending change (consistent); TransactWriteItems (change ended, index deleted, notices 10 and 8, record)',
      events: 'admin.action (user.phone_change_cancelled only for a change that ran)',
    },
  },
  notFound: {
    'unknown route': { requests: 0, sequential: 0, work: 'none' },
  },
};
