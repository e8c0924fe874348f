// docs/redeem-authorization.schema.json: the payload and answer of the function with no HTTP route,
// generated from the zod schemas redeemAuthorization validates with, and true to what it accepts.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { redeemAuthorizationPayload } from '../../lib/authorizations/redeem-authorization-payload.js';
import { parseInput } from '../../lib/validation.js';
import { REDEEM_SCHEMA_FILE, renderRedeemSchema } from '../../scripts/openapi.js';

const schema = JSON.parse(readFileSync(REDEEM_SCHEMA_FILE, 'utf8'));
const ajv = new Ajv2020({ strict: false }).addSchema(schema);
const part = (name: string) => ajv.getSchema(`${schema.$id}#/properties/${name}`)!;
const payloadValid = part('payload');
const answerValid = part('answer');

const payload = {
  company_id: '5f1c7a2b9d3e4f60718293a4b5c6d7e8',
  authorization_token: 'Qm9vN3lDa2hYcnZ0TjVwS0ZqYlJ3Z1UyeEx6YTFkU2U',
  amount: '10.50',
  currency: 'EUR',
  payee: 'Acme Coffee',
  reference: 'order-1',
};

describe('docs/redeem-authorization.schema.json', () => {
  it('is what the code generates (run `npm run openapi` after changing the payload or result schema)', () => {
    expect(readFileSync(REDEEM_SCHEMA_FILE, 'utf8')).toBe(renderRedeemSchema());
  });

  it.each([
    ['a good payload', {}],
    ['an amount with 13 integer digits', { amount: '1234567890123' }],
    ['a lower-case currency', { currency: 'eur' }],
    ['a payee of 129 characters', { payee: 'x'.repeat(129) }],
    ['no reference', { reference: undefined }],
  ])('agrees with the function on %s', async (_, change) => {
    const candidate = JSON.parse(JSON.stringify({ ...payload, ...change }));
    const accepted = await parseInput(redeemAuthorizationPayload, candidate).then(
      () => true,
      () => false,
    );
    expect(payloadValid(candidate)).toBe(accepted);
  });

  it('describes the answers: a redeem, and the refusals 1, 16 and 19', () => {
    const redeemed = {
      user_id: payload.company_id,
      amount: '10.5',
      currency: 'EUR',
      payee: 'Acme Coffee',
      reference: 'order-1',
      authorized_date: 1,
      acr: 'strong',
    };
    expect(answerValid({ success: 1, error: [], data: redeemed })).toBe(true);
    for (const code of [1, 16, 19]) expect(answerValid({ success: 0, error: [code], data: { message: 'BAD_REQUEST' } })).toBe(true);
    expect(answerValid({ success: 0, error: [17], data: { message: 'BAD_REQUEST' } })).toBe(false);
    expect(answerValid({ success: 1, error: [], data: { ...redeemed, amount: 10.5 } })).toBe(false);
  });
});
