// Deleting an account in other tests (API contract 3.11 and 3.15, second reading): from a fresh
// strong session it is deleted at once; from an SMS-strength session it is held and lands once due
// at the next profile read. Tests about something else that need a deleted account use these.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import { pendingChangeKey } from '../../lib/store/keys.js';
import { type Account, type InProcessService, invoke, logIn } from '../helpers.js';

const deletion = (service: InProcessService, company: Company, authorization: string) =>
  invoke(service.handlers.userDelete, {
    path: '/wallet/v3/user/delete',
    headers: { CompanyID: company.company_id, Authorization: authorization },
    body: {},
  });

/** Deletes from a fresh strong session (a PIN login on a settled device just now): answers erase_after. */
export async function deleteNow(service: InProcessService, company: Company, strong: string): Promise<number> {
  const answer = await deletion(service, company, strong);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.body.data.erase_after).toEqual(expect.any(Number));
  return answer.body.data.erase_after;
}

/**
 * Deletes from an OTP login's session (SMS-strength): the deletion is held; then, made due where it
 * is stored (the clock left alone, so other sessions of the test live on), it lands at a profile
 * read (401). The claims stay the user's until erasure. Answers the SMS-strength session used (`sms`, or
 * a new OTP login's) and the held change.
 */
export async function deleteHeldAndLand(
  service: InProcessService,
  company: Company,
  account: Account,
  sms?: string,
): Promise<{ session: string; changeId: string; effectiveAt: number }> {
  const session = sms ?? (await logIn(service, company, account));
  const held = await deletion(service, company, session);
  expect(held.body.data, JSON.stringify(held.body)).toMatchObject({ pending: 1 });
  await service.app.table.client.send(
    new UpdateCommand({
      TableName: service.app.table.name,
      Key: pendingChangeKey(company.company_id, account.userId, 'delete'),
      UpdateExpression: 'SET effective_at = :now',
      ExpressionAttributeValues: { ':now': epochSeconds(service.clock) },
    }),
  );
  const read = await invoke(service.handlers.userProfile, {
    method: 'GET',
    path: '/wallet/v3/user/profile',
    headers: { CompanyID: company.company_id, Authorization: session },
  });
  expect(read.status, JSON.stringify(read.body)).toBe(401);
  return { session, changeId: held.body.data.change_id, effectiveAt: held.body.data.effective_at };
}
