// The IAM role of each function (serverless/permissions.cjs) against what the function does: every
// flow of each function runs against DynamoDB Local while the DynamoDB requests it sends are
// recorded as AWS authorizes them: each item's action (a transaction needs the action of each of
// its items) and the kind of item its key is (serverless/key-kinds.cjs, the dynamodb:LeadingKeys
// patterns), with what an update writes; its uses of the server secret and of SMS too. A role that
// lacks a grant fails in production only; one that grants what no flow does is more than least
// privilege allows.
// The flows are function-flows.ts; the recording, recorded-service.ts; the kinds of item, item-kinds.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { everyFlow } from './function-flows.js';
import { keyKinds } from './item-kinds.js';
import { permissions, service, type TableUse, used } from './recorded-service.js';

describe('the role of each function (serverless/permissions.cjs)', () => {
  // Every flow of the service runs here: passkeys and DPoP added more, and on a loaded machine they take over two minutes.
  beforeAll(everyFlow, 360_000);

  for (const [name, granted] of Object.entries(permissions)) {
    it(`${name}: grants exactly what its flows do, each action on each kind of item`, () => {
      const did = used.get(name) ?? { table: new Map<string, TableUse>(), secret: false, sms: false };
      const grants = (granted.table ?? []).flatMap((grant) =>
        grant.actions.flatMap((action) => grant.keys.map((kind) => [`${action} ${kind}`, grant] as const)),
      );
      const byEntry = new Map<string, (typeof grants)[number][1]>(grants);
      expect(byEntry.size, 'an action on a kind of item granted twice').toBe(grants.length);
      // What the flows did that no grant allows (AWS refuses it), and what is granted that no flow did.
      const done = [...did.table.keys()];
      expect({
        notGranted: done.filter((entry) => !byEntry.has(entry)).sort(),
        notDone: [...byEntry.keys()].filter((entry) => !did.table.has(entry)).sort(),
      }).toEqual({ notGranted: [], notDone: [] });
      for (const [entry, grant] of byEntry) {
        if (!grant.attributes) continue;
        const seen = did.table.get(entry)!;
        const allowed = ['pk', 'sk', ...grant.attributes];
        expect(
          [...seen.attributes].filter((attribute) => !allowed.includes(attribute)),
          entry,
        ).toEqual([]);
        expect(
          [...seen.returnValues].filter((asked) => asked !== 'NONE' && !grant.returns?.includes(asked)),
          entry,
        ).toEqual([]);
      }
      expect(did.secret).toBe(granted.secret ?? false);
      expect(did.sms).toBe(granted.sms ?? false);
      expect(did.queue).toBe(granted.queue);
      expect(did.signingKeys).toBe(granted.signingKeys);
      expect(did.events).toBe(granted.events);
      expect(did.stream).toBe(granted.stream);
      expect(did.deadLetters).toBe(granted.deadLetters);
    });
  }

  it('holds transaction authorization, PIN login, PIN change and device removal to the attributes they write in a user’s partition', () => {
    // IAM sees no sort key: an update allowed on a user's partition without attributes could set any attribute of the user.
    const userPartition = keyKinds.user!;
    for (const name of ['transactionAuthorization', 'loginPin', 'changePin', 'devicesRemove']) {
      const updates = (permissions[name]!.table ?? []).filter(
        (grant) => grant.actions.includes('UpdateItem') && grant.keys.some((kind) => keyKinds[kind] === userPartition),
      );
      expect(updates.length, name).toBeGreaterThan(0);
      for (const grant of updates) expect(grant.attributes, `${name} ${grant.keys}`).toBeDefined();
    }
    // Never another PIN's hash or a status of the user's own: only change_pin writes PIN hashes and versions beyond a rehash.
    const attributesOf = (name: string) => (permissions[name]!.table ?? []).flatMap((grant) => grant.attributes ?? []);
    expect(attributesOf('transactionAuthorization')).not.toContain('login_pin_hash');
    expect(attributesOf('loginPin')).not.toContain('transaction_pin_hash');
    expect(attributesOf('devicesRemove')).toEqual(['device_count', 'unread', 'last_used_at', 'ended_reason', 'ended_at_ms']);
  });

  it('names every function of the service', () => {
    expect(Object.keys(permissions).sort()).toEqual(
      [
        ...Object.keys(service.handlers),
        ...Object.keys(service.invoked),
        ...Object.keys(service.queued),
        ...Object.keys(service.scheduled),
        ...Object.keys(service.streamed),
        'wellKnown',
        // The console's page: fixed text (functions/console.ts), no AWS call, so nothing to record.
        'console',
      ].sort(),
    );
  });
});
