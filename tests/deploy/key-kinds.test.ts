// Each kind of item of serverless/key-kinds.cjs is named after its lib/store/keys.ts function, and
// each key matches its own kind only (tests/deploy/item-kinds.ts tells them apart as IAM does).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newId } from '../../lib/ids.js';
import { hashToken } from '../../lib/secrets/hashing.js';
import {
  addressLimitKey,
  adminCountKey,
  adminSeatKey,
  authorizationKey,
  authorizationReferenceKey,
  awaitingRecoveryKey,
  changeFreezeKey,
  companyKey,
  companySendLimitKey,
  deviceIndexKey,
  deviceNonceKey,
  dpopProofKey,
  emailClaimKey,
  erasureCompanyKey,
  erasureDueKey,
  grantKey,
  type ItemKey,
  idempotencyRecordKey,
  notificationKey,
  otpKey,
  passkeyCredentialKey,
  pendingChangeKey,
  phoneChangeIndexKey,
  phoneClaimKey,
  phoneFailuresKey,
  phoneProofKey,
  phoneSendLimitKey,
  pinDailyKey,
  pinTriesKey,
  prefixSendLimitKey,
  referralCodeKey,
  referralCountKey,
  sessionKey,
  smsPaymentsKey,
  staffActionKey,
  staffChainHeadKey,
  staffChainKey,
  staffLogKey,
  staffLookupsKey,
  unreadCountKey,
  userDeviceKey,
  userKey,
  userPasskeyCountKey,
  userPasskeyKey,
  webauthnChallengeKey,
} from '../../lib/store/keys.js';
import { keyKinds, kindOf } from './item-kinds.js';

describe('the kinds of item (serverless/key-kinds.cjs)', () => {
  it('are named after the lib/store/keys.ts functions, and each key matches its own kind only', () => {
    const [company, user, phone] = [newId(), newId(), '+12025550123'];
    const keys: Record<string, ItemKey> = {
      company: companyKey(company),
      user: userKey(company, user),
      session: sessionKey(company, user, hashToken(randomUUID())),
      notification: notificationKey(company, user, Date.now(), newId()),
      referralCount: referralCountKey(company, user, 3),
      unreadCount: unreadCountKey(company, user, 3),
      phoneClaim: phoneClaimKey(company, phone, 2),
      // Anything may follow a kind's marker: an email with another kind's marker in it stays an email claim.
      emailClaim: emailClaimKey(company, 'a#OTP#b#USER#c@example.com', 2),
      referralCode: referralCodeKey(company, 'OTP123'),
      phoneProof: phoneProofKey(company, hashToken(randomUUID())),
      otp: otpKey(company, phone, 2, 1),
      phoneSendLimit: phoneSendLimitKey(company, phone),
      companySendLimit: companySendLimitKey(company, 490_000, 7),
      prefixSendLimit: prefixSendLimitKey(company, '+1202555', 490_000),
      phoneFailures: phoneFailuresKey(company, phone),
      addressLimit: addressLimitKey('2001:db8::1', 'VERIFIES', 1),
      pinTries: pinTriesKey(company, user, 'transaction'),
      pinDaily: pinDailyKey(company, user, 'login'),
      smsPayments: smsPaymentsKey(company, user, 'EUR'),
      authorization: authorizationKey(company, hashToken(randomUUID())),
      // A reference may hold another kind's marker and stays a reference claim.
      authorizationReference: authorizationReferenceKey(company, user, 'order#PHONE#1'),
      userDevice: userDeviceKey(company, user, newId()),
      deviceIndex: deviceIndexKey(company, newId()),
      deviceNonce: deviceNonceKey(company, newId(), 'nonce-0123456789ab'),
      // A key's thumbprint is base64url: it may hold neither # nor another kind's marker.
      dpopProof: dpopProofKey(company, 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs', 'jti-hash'),
      idempotencyRecord: idempotencyRecordKey(company, hashToken(randomUUID())),
      erasureDue: erasureDueKey(company, 1767225600, user),
      erasureCompany: erasureCompanyKey(company),
      adminCount: adminCountKey(company),
      adminSeat: adminSeatKey(company, user),
      staffChain: staffChainKey(company, 42),
      staffChainHead: staffChainHeadKey(company),
      grant: grantKey(company, newId()),
      awaitingRecovery: awaitingRecoveryKey(company, newId()),
      staffLog: staffLogKey(company, Date.now(), newId()),
      staffAction: staffActionKey(company, user, Date.now(), newId()),
      staffLookups: staffLookupsKey(company, user, 490_000),
      pendingChange: pendingChangeKey(company, user, 'phone'),
      changeFreeze: changeFreezeKey(company, user),
      phoneChangeIndex: phoneChangeIndexKey(company, phone, 2),
      userPasskey: userPasskeyKey(company, user, newId()),
      userPasskeyCount: userPasskeyCountKey(company, user),
      passkeyCredential: passkeyCredentialKey(company, hashToken(randomUUID())),
      // A challenge is base64url: it may hold neither # nor another kind's marker.
      webauthnChallenge: webauthnChallengeKey(company, 'q3cUw1Y5bqYw3mU0nq8w2d2m4Yh0Q3g8dQ2w1Yx5c0A'),
    };
    expect(Object.keys(keys).sort()).toEqual(Object.keys(keyKinds).sort());
    for (const [kind, key] of Object.entries(keys)) expect(kindOf(key), `${key.pk} ${key.sk}`).toBe(kind);
  });
});
