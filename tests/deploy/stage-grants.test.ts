// What serverless/stack.cjs adds to a role on a stage (grantsOnStage): with DPOP_NONCE=1 every
// function of the route table spends its DPoP proofs' jti by a conditional put (lib/http/dpop.ts),
// so each holds PutItem on dpopProof there; without it, only the routes that answer tokens do, as
// serverless/permissions.cjs says and function-permissions.test.ts proves.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { endpoints } from '../../lib/api/endpoints.js';
import { permissions } from './recorded-service.js';

type Grants = { table?: { actions: string[]; keys: string[] }[] };
const { grantsOnStage, routeFunctions } = createRequire(import.meta.url)('../../serverless/stack.cjs') as {
  grantsOnStage: (name: string, granted: Grants, stage: { dpopNonce: boolean; routes: Set<string> }) => Grants;
  routeFunctions: () => Set<string>;
};

/** How many grants of a role allow PutItem on a proof's jti. */
const spends = (granted: Grants) =>
  (granted.table ?? []).filter((grant) => grant.actions.includes('PutItem') && grant.keys.includes('dpopProof')).length;

describe('the roles on a stage (serverless/stack.cjs)', () => {
  const routes = routeFunctions();

  it('takes the route table’s functions as the routes', () => {
    expect([...routes].sort()).toEqual(Object.keys(endpoints).sort());
  });

  it('with DPOP_NONCE=1, lets every route spend a proof’s jti, once; the other functions nothing more', () => {
    for (const [name, granted] of Object.entries(permissions)) {
      const onStage = grantsOnStage(name, granted as Grants, { dpopNonce: true, routes });
      expect(spends(onStage), name).toBe(routes.has(name) ? 1 : 0);
      // Nothing else changes.
      expect(
        (onStage.table ?? []).filter((grant) => !grant.keys.includes('dpopProof')),
        name,
      ).toEqual(((granted as Grants).table ?? []).filter((grant) => !grant.keys.includes('dpopProof')));
    }
  });

  it('without it, grants what serverless/permissions.cjs says: the put on the routes that answer tokens only', () => {
    for (const [name, granted] of Object.entries(permissions)) {
      expect(grantsOnStage(name, granted as Grants, { dpopNonce: false, routes }), name).toBe(granted);
      const answersCredential = (endpoints as Record<string, { answersCredential?: true }>)[name]?.answersCredential === true;
      expect(spends(granted as Grants), name).toBe(answersCredential ? 1 : 0);
    }
  });
});
