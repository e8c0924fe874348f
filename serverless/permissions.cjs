// What each function may do, and nothing more: serverless/stack.cjs builds one IAM role per
// function from this list, and tests/deploy/function-permissions.test.ts runs every flow of each
// function against DynamoDB Local and checks it does exactly this (no less, or AWS refuses it; no
// more, or the role grants what nobody uses). An endpoint's grants are in its module
// (lib/api/*-endpoint.ts, `grants`, with the parts they share in lib/api/grant-parts.ts); those of
// the functions with no route of the API are here.
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

const { require: requireTypeScript } = require('tsx/cjs/api');

/** Each operation of the route table (lib/api/endpoints.ts) by its name, with its module's grants. */
function endpointGrants() {
  const { endpoints } = requireTypeScript('../lib/api/endpoints.ts', __filename);
  return Object.fromEntries(Object.entries(endpoints).map(([name, endpoint]) => [name, endpoint.grants]));
}

module.exports = {
  // Every endpoint's role, from its module (lib/api/*-endpoint.ts, grants).
  ...endpointGrants(),
  // The SMS queue's consumer: opens each text (the secret's queue key) and publishes it; no table.
  smsSend: {
    secret: true,
    sms: true,
    queue: 'consume',
  },
  // The discovery document and the JWKS: the public keys, nothing else.
  wellKnown: {
    signingKeys: 'verify',
  },
  // The eraser, run by a schedule: the due lists read, each due user made ERASED and their items
  // deleted (their partition, their device's nonces, their codes and counters when the phone is no
  // one's, their referral code and claims), a referrer's notice that named them blanked, and the
  // record replaced by what is kept. No secret, no token, no SMS.
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
      // The number's codes and counters, each only if expired or written while it was the user's.
      {
        actions: ['DeleteItem'],
        keys: ['erasureDue', 'referralCode', 'phoneClaim', 'emailClaim', 'otp', 'phoneSendLimit', 'phoneFailures'],
      },
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
