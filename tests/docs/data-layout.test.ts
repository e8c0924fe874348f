import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ItemKey } from '../../lib/store/keys.js';
import * as keys from '../../lib/store/keys.js';
import { markdownTable } from './markdown.js';

// docs/data-layout.md's key table against the code: every key the functions of lib/store/keys.ts
// build, with sample values written back as the table's placeholders, is a row, and every row is
// such a key. The keys come from calling the functions, never from a copy of their formats.

const root = resolve(import.meta.dirname, '../..');

/** Sample values, each standing for the placeholder the table writes in its place. */
const SAMPLES = {
  company: 'c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0',
  user: 'a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1',
  phone: '+12025550123',
  email: 'ada@example.com',
  userType: 2,
  otpType: 4,
  referralCode: 'K3Y7M2QX',
  tokenHash: 'd4'.repeat(32),
  session: '9f'.repeat(16),
  proofHash: 'f6'.repeat(32),
  shard: 7,
  hour: 481_234,
  slot: 5_774_808,
  range: '+1202555',
  address: '198.51.100.7',
  createdAtMs: 1_700_000_000_123,
  notification: 'b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2',
  reference: 'order-42',
  idempotencyHash: 'e5'.repeat(32),
  device: 'd3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3',
  nonce: 'Nn0nceNn0nceNn0nce',
  eraseAfter: 1_767_225_600,
  kind: 'device_remove',
  currency: 'EUR',
  seq: 42,
  grant: 'e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7',
  jkt: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
  jtiHash: 'fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo',
  change: 'c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8c8',
  passkey: '9b9b9b9b9b9b9b9b9b9b9b9b9b9b9b9b',
  credentialHash: 'a7'.repeat(32),
  challenge: 'Ch4llengeCh4llengeCh4llengeCh4llengeCh4llen',
};

const PLACEHOLDERS = new Map<string, string>([
  [SAMPLES.company, '<cid>'],
  [SAMPLES.user, '<uid>'],
  [SAMPLES.phone, '<e164>'],
  [SAMPLES.email, '<email>'],
  [String(SAMPLES.userType), '<user type>'],
  [String(SAMPLES.otpType), '<otp type>'],
  [SAMPLES.referralCode, '<code>'],
  [SAMPLES.tokenHash, '<sha256 of token>'],
  [SAMPLES.session, '<sid>'],
  [SAMPLES.proofHash, '<sha256 of proof>'],
  [String(SAMPLES.shard), '<n>'],
  [String(SAMPLES.hour), '<hour>'],
  [String(SAMPLES.slot), '<slot>'],
  [SAMPLES.range, '<+cc digits>'],
  [SAMPLES.address, '<address>'],
  [String(SAMPLES.createdAtMs).padStart(15, '0'), '<created ms, 15 digits>'],
  [SAMPLES.notification, '<id>'],
  [SAMPLES.reference, '<reference>'],
  [SAMPLES.idempotencyHash, '<sha256 of company, Authorization and key>'],
  [SAMPLES.device, '<device_key>'],
  [SAMPLES.kind, '<kind>'],
  [SAMPLES.currency, '<currency>'],
  [SAMPLES.nonce, '<nonce>'],
  [String(SAMPLES.eraseAfter).padStart(12, '0'), '<erase_after, 12 digits>'],
  [new Date(SAMPLES.createdAtMs).toISOString().slice(0, 10), '<UTC day, YYYY-MM-DD>'],
  [String(SAMPLES.seq).padStart(15, '0'), '<seq, 15 digits>'],
  [SAMPLES.grant, '<grant id>'],
  [SAMPLES.change, '<change id>'],
  [SAMPLES.passkey, '<passkey_id>'],
  [SAMPLES.credentialHash, '<sha256 of credential id>'],
  [SAMPLES.challenge, '<challenge>'],
  [SAMPLES.jkt, '<key thumbprint>'],
  [SAMPLES.jtiHash, '<sha256 of jti>'],
]);

const { company, user, phone, userType, shard, hour, device } = SAMPLES;

/** Every item-key function of lib/store/keys.ts, called with the samples (each value of a closed set once). */
const BUILT: Record<string, () => ItemKey[]> = {
  companyKey: () => [keys.companyKey(company)],
  userKey: () => [keys.userKey(company, user)],
  referralCountKey: () => [keys.referralCountKey(company, user, shard)],
  phoneClaimKey: () => [keys.phoneClaimKey(company, phone, userType)],
  emailClaimKey: () => [keys.emailClaimKey(company, SAMPLES.email, userType)],
  referralCodeKey: () => [keys.referralCodeKey(company, SAMPLES.referralCode)],
  sessionKey: () => [keys.sessionKey(company, user, SAMPLES.session)],
  phoneProofKey: () => [keys.phoneProofKey(company, SAMPLES.proofHash)],
  otpKey: () => [keys.otpKey(company, phone, userType, SAMPLES.otpType)],
  phoneSendLimitKey: () => [keys.phoneSendLimitKey(company, phone)],
  companySendLimitKey: () => [keys.companySendLimitKey(company, hour, shard)],
  prefixSendLimitKey: () => [keys.prefixSendLimitKey(company, SAMPLES.range, hour)],
  phoneFailuresKey: () => [keys.phoneFailuresKey(company, phone)],
  addressLimitKey: () => [
    keys.addressLimitKey(SAMPLES.address, 'SENDS', hour),
    keys.addressLimitKey(SAMPLES.address, 'VERIFIES', SAMPLES.slot),
  ],
  notificationKey: () => [keys.notificationKey(company, user, SAMPLES.createdAtMs, SAMPLES.notification)],
  pinTriesKey: () => [
    keys.pinTriesKey(company, user, 'login'),
    keys.pinTriesKey(company, user, 'login', device),
    keys.pinTriesKey(company, user, 'transaction'),
    keys.pinTriesKey(company, user, 'transaction', 'sms'),
  ],
  pinDailyKey: () => [keys.pinDailyKey(company, user, 'login'), keys.pinDailyKey(company, user, 'transaction')],
  smsPaymentsKey: () => [keys.smsPaymentsKey(company, user, SAMPLES.currency)],
  unreadCountKey: () => [keys.unreadCountKey(company, user, shard)],
  authorizationKey: () => [keys.authorizationKey(company, SAMPLES.tokenHash)],
  authorizationReferenceKey: () => [keys.authorizationReferenceKey(company, user, SAMPLES.reference)],
  idempotencyRecordKey: () => [keys.idempotencyRecordKey(company, SAMPLES.idempotencyHash)],
  deviceIndexKey: () => [keys.deviceIndexKey(company, device)],
  deviceNonceKey: () => [keys.deviceNonceKey(company, device, SAMPLES.nonce)],
  dpopProofKey: () => [keys.dpopProofKey(company, SAMPLES.jkt, SAMPLES.jtiHash)],
  userDeviceKey: () => [keys.userDeviceKey(company, user, device)],
  userPasskeyKey: () => [keys.userPasskeyKey(company, user, SAMPLES.passkey)],
  userPasskeyCountKey: () => [keys.userPasskeyCountKey(company, user)],
  passkeyCredentialKey: () => [keys.passkeyCredentialKey(company, SAMPLES.credentialHash)],
  webauthnChallengeKey: () => [keys.webauthnChallengeKey(company, SAMPLES.challenge)],
  erasureDueKey: () => [keys.erasureDueKey(company, SAMPLES.eraseAfter, user)],
  erasureCompanyKey: () => [keys.erasureCompanyKey(company)],
  adminCountKey: () => [keys.adminCountKey(company)],
  staffActionKey: () => [keys.staffActionKey(company, user, SAMPLES.createdAtMs, SAMPLES.notification)],
  staffLogKey: () => [keys.staffLogKey(company, SAMPLES.createdAtMs, SAMPLES.notification)],
  staffChainKey: () => [keys.staffChainKey(company, SAMPLES.seq)],
  staffChainHeadKey: () => [keys.staffChainHeadKey(company)],
  adminSeatKey: () => [keys.adminSeatKey(company, user)],
  grantKey: () => [keys.grantKey(company, SAMPLES.grant)],
  awaitingRecoveryKey: () => [keys.awaitingRecoveryKey(company, SAMPLES.change)],
  staffLookupsKey: () => [keys.staffLookupsKey(company, user, hour)],
  pendingChangeKey: () => [keys.pendingChangeKey(company, user, SAMPLES.kind)],
  changeFreezeKey: () => [keys.changeFreezeKey(company, user)],
  phoneChangeIndexKey: () => [keys.phoneChangeIndexKey(company, phone, userType)],
};

/** A built key as the table writes it: each `#`-separated part that is a sample becomes its placeholder. */
function documented(key: string): string {
  return key
    .split('#')
    .map((part) => PLACEHOLDERS.get(part) ?? part)
    .join('#');
}

const rowOf = ({ pk, sk }: ItemKey) => `${documented(pk)} | ${documented(sk)}`;

/** The "pk | sk" of every row of docs/data-layout.md's key table. */
function documentedRows(): string[] {
  const table = markdownTable(readFileSync(resolve(root, 'docs/data-layout.md'), 'utf8'), ['item', 'pk', 'sk']);
  return table.map(([, pk, sk]) => `${pk!.replace(/^`|`$/g, '')} | ${sk!.replace(/^`|`$/g, '')}`);
}

describe('docs/data-layout.md', () => {
  it('samples every item-key function of lib/store/keys.ts', () => {
    const itemKeyFunctions = Object.entries(keys)
      .filter(([name, value]) => typeof value === 'function' && name.endsWith('Key'))
      .map(([name]) => name);
    expect(Object.keys(BUILT).sort()).toEqual(itemKeyFunctions.sort());
  });

  it('lists exactly the keys the code builds, each once', () => {
    const built = Object.values(BUILT).flatMap((build) => build().map(rowOf));
    // A sample the placeholders missed would show as a value, and two functions building one key would show twice.
    expect(new Set(built).size).toBe(built.length);
    const rows = documentedRows();
    expect(new Set(rows).size, 'a row listed twice').toBe(rows.length);
    expect(
      rows.filter((row) => !built.includes(row)),
      'rows no key function builds',
    ).toEqual([]);
    expect(
      built.filter((row) => !rows.includes(row)),
      'keys the table does not list',
    ).toEqual([]);
  });

  it('names its placeholders in the line under the table', () => {
    const text = readFileSync(resolve(root, 'docs/data-layout.md'), 'utf8');
    const legend = text.slice(text.indexOf('In the keys:')).split('\n\n')[0]!;
    // A hash's placeholder says what it hashes: the legend names them together.
    const named = [...new Set(PLACEHOLDERS.values())].filter((placeholder) => !placeholder.startsWith('<sha256 of '));
    for (const placeholder of named) expect(legend, placeholder).toContain(`\`${placeholder}\``);
    expect(legend).toContain('`<sha256 of ...>`');
  });
});
