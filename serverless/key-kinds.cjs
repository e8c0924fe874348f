// The kinds of item a grant of serverless/permissions.cjs names, each after the lib/store/keys.ts
// function that builds its key, with the partition keys IAM tells it by: a dynamodb:LeadingKeys
// pattern (StringLike: ? is one character, * any run). Company and user ids are 32 hex characters
// (lib/ids.ts), so each pattern fixes where its kind's marker stands. IAM sees no sort key: the
// kinds kept in a user's partition (the profile, its referral count shards, sessions, notifications,
// unread count shards, PIN tries and device list items) share one pattern, and a grant on one of
// them is a grant on all of them (docs/security.md, "Known limits").

const ID = '?'.repeat(32);
const company = `C#${ID}`;
const userPartition = `${company}#USER#${ID}`;

module.exports = {
  company,
  user: userPartition,
  session: userPartition,
  notification: userPartition,
  pinTries: userPartition,
  // A user's wrong PINs of a day, per PIN (the daily cap of contract 3.15).
  pinDaily: userPartition,
  // A user's payments approved from SMS-strength sessions in 24 hours, per currency (contract 3.15).
  smsPayments: userPartition,
  referralCount: userPartition,
  unreadCount: userPartition,
  userDevice: userPartition,
  // A user's passkeys (contract 3.16), the company's claim of each credential id, and the challenges it gave.
  userPasskey: userPartition,
  userPasskeyCount: userPartition,
  passkeyCredential: `${company}#PASSKEY#*`,
  webauthnChallenge: `${company}#WACHALLENGE#*`,
  // A DPoP proof's jti, spent (contract 3.17), in the partition of the key that signed it.
  dpopProof: `${company}#DPOP#*`,
  // A user's pending changes (one per kind: CHANGE#<kind>), and a phone change's index item by the new number.
  pendingChange: userPartition,
  // Staff's freeze of a user's held changes (contract 3.15, second reading).
  changeFreeze: userPartition,
  phoneChangeIndex: `${company}#NEWPHONE#*`,
  // A bound device's index item and its nonces share its partition.
  deviceIndex: `${company}#DEVICE#*`,
  deviceNonce: `${company}#DEVICE#*`,
  phoneClaim: `${company}#PHONE#*`,
  emailClaim: `${company}#EMAIL#*`,
  referralCode: `${company}#REFCODE#*`,
  phoneProof: `${company}#PROOF#*`,
  otp: `${company}#OTP#*`,
  // A phone's counters (E.164, so a + follows), the company's shards, and a number range's.
  phoneSendLimit: `${company}#SENDS#+*`,
  companySendLimit: `${company}#SENDS#SHARD#*`,
  prefixSendLimit: `${company}#SENDS#PREFIX#*`,
  phoneFailures: `${company}#FAILS#*`,
  addressLimit: 'ADDRESS#*',
  authorization: `${company}#AUTHZ#*`,
  authorizationReference: `${company}#AUTHREF#*`,
  // An Idempotency-Key's record: the first answer to a key, sealed (lib/http/idempotency.ts).
  idempotencyRecord: `${company}#IDEMPOTENCY#*`,
  // A company's due list of erasures, and the service-wide list of companies with deletions (ids only).
  erasureDue: `${company}#ERASURES`,
  erasureCompany: 'ERASURES',
  // The back office: a company's count of active admins and their seats, its staff chain (each
  // record at its place, and the head), its log of staff actions by day as kept before the chain
  // (read only), each action on a user, kept in the user's partition, and what awaits approval.
  adminCount: `${company}#ADMINS`,
  adminSeat: `${company}#ADMINS`,
  staffChain: `${company}#STAFFLOG`,
  staffChainHead: `${company}#STAFFHEAD`,
  staffLog: `${company}#STAFFLOG#*`,
  staffAction: userPartition,
  grant: `${company}#APPROVALS`,
  awaitingRecovery: `${company}#APPROVALS`,
  // An employee's searches and views of an hour (ADMIN_LOOKUPS_PER_HOUR).
  staffLookups: `${company}#LOOKUPS#*`,
};
