// The fewest DynamoDB requests each endpoint and outcome needs, with a warm company cache and
// no Authorization header unless the outcome says so. docs/performance.md explains each one;
// the bench checks every measured call against this table.

export interface Minimum {
  /** DynamoDB HTTP requests per call. */
  requests: number;
  /** Of those, how many must wait for an earlier one (the rest run side by side). */
  sequential: number;
  /** The requests, in order; "a | b" run side by side. */
  work: string;
}

export const MINIMUM_ROUND_TRIPS: Record<string, Record<string, Minimum>> = {
  user_register: {
    'new user': { requests: 1, sequential: 1, work: 'TransactWriteItems (user, phone, email, referral code, session)' },
    'new user, proven phone': { requests: 1, sequential: 1, work: 'TransactWriteItems (+ the proof used up)' },
    'phone reclaimed from an unverified holder': {
      requests: 5,
      sequential: 4,
      work:
        'TransactWriteItems (refused on the phone claim); GetItem phone claim; GetItem holder | Query holder sessions; ' +
        "TransactWriteItems (claims moved, holder status 3, holder's sessions deleted, proof used up)",
    },
    'new user, referred': {
      requests: 2,
      sequential: 2,
      work: 'GetItem referral code; TransactWriteItems (+ referrer count, notification)',
    },
    'duplicate phone': { requests: 1, sequential: 1, work: 'TransactWriteItems, cancelled on the phone claim' },
    'unknown referral code': { requests: 1, sequential: 1, work: 'GetItem referral code' },
  },
  login_phone: {
    'first send in window': {
      requests: 7,
      sequential: 4,
      work:
        'GetItem phone claim | UpdateItem address hour | GetItem phone failures; UpdateItem phone counters; ' +
        'UpdateItem company hour | UpdateItem number range hour; PutItem code',
    },
    'later send in window': {
      requests: 8,
      sequential: 5,
      work:
        'GetItem phone claim | UpdateItem address hour | GetItem phone failures; UpdateItem new window (refused, returns counters); ' +
        'UpdateItem in window; UpdateItem company hour | UpdateItem number range hour; PutItem code',
    },
    'too soon (429)': {
      requests: 4,
      sequential: 2,
      work: 'GetItem phone claim | UpdateItem address hour | GetItem phone failures; UpdateItem phone counters (refused)',
    },
    'unregistered phone': {
      requests: 7,
      sequential: 4,
      work: 'as a first send, the stored code one no code matches, and no SMS',
    },
    'destination refused (400, code 15)': { requests: 0, sequential: 0, work: 'none: checked against the numbering plan before any limit' },
  },
  verify_otp: {
    'wrong code': {
      requests: 5,
      sequential: 3,
      work: 'UpdateItem address window | GetItem phone failures; DeleteItem code (refused, returns it); UpdateItem tries | UpdateItem phone failures',
    },
    'right login code': {
      requests: 4,
      sequential: 3,
      work: 'UpdateItem address window | GetItem phone failures; DeleteItem code; TransactWriteItems (session, user: active? phone verified, session count)',
    },
    'code already used': {
      requests: 3,
      sequential: 2,
      work: 'UpdateItem address window | GetItem phone failures; DeleteItem code (refused, nothing there)',
    },
  },
  referral_program: {
    'own list, first page': { requests: 3, sequential: 2, work: 'GetItem session (consistent); GetItem user | Query notifications' },
    'own list, next page': { requests: 3, sequential: 2, work: 'GetItem session (consistent); GetItem user | Query notifications' },
    "another user's list (403)": { requests: 1, sequential: 1, work: 'GetItem session (consistent)' },
  },
  logout: {
    'this session': { requests: 2, sequential: 2, work: 'GetItem session; DeleteItem session' },
    'other sessions (one)': { requests: 3, sequential: 3, work: "GetItem session; Query the user's sessions; BatchWriteItem deletes" },
    'all sessions (one)': { requests: 3, sequential: 3, work: "GetItem session; Query the user's sessions; BatchWriteItem deletes" },
  },
  not_found: {
    'unknown route': { requests: 0, sequential: 0, work: 'none' },
  },
};
