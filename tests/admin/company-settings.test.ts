// The company's settings in the back office (API contract 3.14, 6 and 7): an admin sees and
// changes what `npm run company:update` changes, by its rules: a text that needs a third SMS is
// refused with its count, and nothing changes. Support, customers and a missing reason are refused.
// Each view and change is recorded in the company's log (it names no user) and becomes an admin.action.
// A change of a security setting (sms_text, sms_countries, phone_change_texts) takes two admins
// (round 6): company/update asks (pending 1, grant_id) and another admin applies it with company/approve.
import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { eventsOfRecord } from '../../lib/events/stream-events.js';
import { getCompany } from '../../lib/store/company-store.js';
import { staffChainKey } from '../../lib/store/keys.js';
import { type ChainedStaffRecord, queryStaffChain } from '../../lib/store/staff-store.js';
import { main as staffActions } from '../../scripts/staff-actions.js';
import {
  expectFailure,
  invoke,
  logIn,
  newCompany,
  randomPhoneNumber,
  runOperator,
  sampleRegistration,
  signUp,
  testService,
} from '../helpers.js';
import { type StaffMember, staffMember } from './staff.js';

const service = testService();
let company: Company;
let admin: StaffMember;
let secondAdmin: StaffMember;

beforeAll(async () => {
  company = await newCompany(service);
  admin = await staffMember(service, company, 'admin');
  secondAdmin = await staffMember(service, company, 'admin');
});

type Route = 'adminCompanyView' | 'adminCompanyUpdate' | 'adminCompanyApprove';
const call = (route: Route, authorization: string, body: Record<string, unknown>, companyId = company.company_id) =>
  invoke(service.handlers[route], {
    path: `/wallet/v3/admin/company/${route.slice('adminCompany'.length).toLowerCase()}`,
    headers: { CompanyID: companyId, Authorization: authorization },
    body,
  });
const view = (reason = 'ticket 1: a look') => call('adminCompanyView', admin.session, { reason });
const update = (body: Record<string, unknown>, authorization = admin.session) =>
  call('adminCompanyUpdate', authorization, { reason: 'ticket 2: settings', ...body });
const approve = (grantId: string, authorization = secondAdmin.session) =>
  call('adminCompanyApprove', authorization, { grant_id: grantId, reason: 'ticket 3: checked' });
/** An update as applied: asked by the admin and, when it waits for a second admin, approved by the other. */
async function applied(body: Record<string, unknown>) {
  const asked = await update(body);
  if (asked.status !== 200 || asked.body.data.pending === 0) return asked;
  return approve(asked.body.data.grant_id);
}

const stored = async (of = company) => (await getCompany(service.app.table, of.company_id, true))!;

/** The records of the company's staff chain written by `reason`. */
async function loggedWith(reason: string): Promise<ChainedStaffRecord[]> {
  return (await queryStaffChain(service.app.table, company.company_id)).filter((record) => record.reason === reason);
}

/** A GSM-7 template whose message needs 3 SMS with a 6-digit code, the name and the minutes. */
const THREE_SMS_TEMPLATE = `{code} is your {brand} code. ${'Keep it to yourself. '.repeat(15)}`;

describe('company/view', () => {
  it('shows an admin the settings as company:update prints them, each text sized, the limits marked, and the rules', async () => {
    const answer = await view();
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const { company: shown, rules } = answer.body.data;
    expect(shown).toMatchObject({
      company_id: company.company_id,
      name: company.name,
      require_verified_phone: 0,
      sms_countries: 'all',
      sms_text: { templates: {}, default_language: null, app_hash: null, webotp_domain: null },
      phone_change_texts: {},
      phone_change_sizes: {},
    });
    // With no template, the built-in English text is the one sent: sized with a 6-digit code and the name.
    expect(shown.sms_sizes).toEqual({ 'built-in': { segments: 1, encoding: 'GSM-7', units: expect.any(Number) } });
    expect(shown.limits.sms_per_hour).toEqual({
      value: service.app.config.otp.sendsPerCompanyPerHour,
      default: service.app.config.otp.sendsPerCompanyPerHour,
      source: 'default',
      min: 1,
    });
    expect(shown.warnings).toEqual([expect.stringContaining('SMS may go to every country')]);
    expect(rules).toMatchObject({
      max_sms_segments: 2,
      template_placeholders: ['{code}', '{brand}', '{minutes}'],
      phone_change_placeholders: ['{brand}'],
      app_hash_length: 11,
      in_force_within_seconds: service.app.config.companyCacheSeconds,
    });
    // Read field by field: nothing of the record it does not name (its status, its creation) shows.
    expect(Object.keys(shown)).not.toContain('status');
    expect(Object.keys(shown)).not.toContain('created_at');
  });

  it('is recorded in the company’s log only (action company_view, no user), as an admin.action without the reason', async () => {
    const reason = `ticket ${randomPhoneNumber()}: view`;
    expect((await view(reason)).status).toBe(200);
    const [record, ...more] = await loggedWith(reason);
    expect(more).toEqual([]);
    expect(record).toMatchObject({ action: 'company_view', actor_id: admin.userId, company_id: company.company_id });
    expect(record!.user_id).toBeUndefined();
    expect(eventOf(record!)).toEqual({ type: 'admin.action', actor_id: admin.userId, action: 'company_view' });
  });
});

/** The event the table's stream makes of a record in the company's chain: type and fields, without ids and times. */
function eventOf(record: ChainedStaffRecord) {
  const key = staffChainKey(record.company_id, record.seq);
  const events = eventsOfRecord(
    {
      eventID: 'e-1',
      eventName: 'INSERT',
      dynamodb: { Keys: marshall(key) as never, NewImage: marshall({ ...record, ...key, staff_log: 1 }) as never },
    },
    service.app.config,
  );
  expect(events).toHaveLength(1);
  const {
    event_id: _id,
    company_id: companyId,
    occurred_at: _at,
    seq,
    record_hash: hash,
    ...fields
  } = events[0]!.detail as Record<string, unknown>;
  expect(companyId).toBe(record.company_id);
  expect([seq, hash]).toEqual([record.seq, record.record_hash]);
  expect(JSON.stringify(events)).not.toContain(record.reason);
  return { type: events[0]!.type, ...fields };
}

describe('company/update', () => {
  it('changes what company:update changes, answers the settings as company/view shows them, and other functions use them', async () => {
    const reason = `ticket ${randomPhoneNumber()}: Hindi`;
    const answer = await applied({
      reason,
      require_verified_phone: 1,
      sms_countries: ['us', 'IN'],
      sms_text: {
        templates: { en: '{code} is your {brand} code ({minutes} min).', HI: '{code} आपका {brand} कोड है।' },
        default_language: 'hi',
        app_hash: 'FA+9qCX9VSu',
        webotp_domain: 'Wallet.Example.com',
      },
      phone_change_texts: { hi: 'आपका {brand} खाता दूसरे नंबर पर गया।' },
      limits: { sms_per_hour: 5000, verifies_per_address: 0 },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const { company: shown, in_force_within_seconds: within, message } = answer.body.data;
    expect(within).toBe(service.app.config.companyCacheSeconds);
    expect(message).toContain(`within ${within} seconds`);
    expect(shown).toMatchObject({
      require_verified_phone: 1,
      sms_countries: ['IN', 'US'],
      sms_text: {
        templates: { en: '{code} is your {brand} code ({minutes} min).', hi: '{code} आपका {brand} कोड है।' },
        default_language: 'hi',
        app_hash: 'FA+9qCX9VSu',
        webotp_domain: 'wallet.example.com',
      },
      phone_change_texts: { hi: 'आपका {brand} खाता दूसरे नंबर पर गया।' },
      // With the app hash and WebOTP lines the Hindi text takes 2 SMS, which Android's SMS Retriever does not read: stored, with a warning.
      warnings: [expect.stringMatching(/^hi: 2 SMS .*SMS Retriever/)],
    });
    expect(shown.limits.sms_per_hour).toMatchObject({ value: 5000, source: 'company' });
    expect(shown.limits.verifies_per_address).toMatchObject({ value: 0, source: 'company' });
    expect(shown.limits.sms_per_prefix_per_hour).toMatchObject({ source: 'default' });
    // The default language has a template: no built-in text is sent, so none is sized.
    expect(Object.keys(shown.sms_sizes).sort()).toEqual(['en', 'hi']);
    expect(shown.sms_sizes.hi).toMatchObject({ encoding: 'UCS-2', segments: 2 });
    expect(shown.sms_sizes.en).toMatchObject({ encoding: 'GSM-7', segments: 1 });
    expect(shown.phone_change_sizes.hi).toMatchObject({ encoding: 'UCS-2', segments: 1 });
    // The view shows what the update answered.
    expect((await view()).body.data.company).toEqual(shown);
    expect(await stored()).toMatchObject({
      require_verified_phone: true,
      sms_countries: ['IN', 'US'],
      sms_per_hour: 5000,
      verifies_per_address: 0,
      sms_text: expect.objectContaining({ default_language: 'hi', phone_change_texts: { hi: 'आपका {brand} खाता दूसरे नंबर पर गया।' } }),
    });

    // Recorded when asked and when applied, in the company's log only, each an admin.action without the reason.
    const [record, ...more] = await loggedWith(reason);
    expect(more).toEqual([]);
    expect(record).toMatchObject({ action: 'company_grant', actor_id: admin.userId, details: { grant_id: answer.body.data.grant_id } });
    expect(record!.user_id).toBeUndefined();
    expect(eventOf(record!)).toEqual({ type: 'admin.action', actor_id: admin.userId, action: 'company_grant' });
    const [approval] = (await queryStaffChain(service.app.table, company.company_id)).filter(
      (entry) => entry.action === 'company_approve' && entry.details?.grant_id === answer.body.data.grant_id,
    );
    expect(approval).toMatchObject({ actor_id: secondAdmin.userId, details: { settings: 'sms_text sms_countries phone_change_texts' } });

    // In force for the other functions (this service keeps no company cache): a customer registering needs a phone proof now.
    const unproven = await invoke(service.handlers.userRegister, {
      path: '/r',
      headers: { CompanyID: company.company_id },
      body: sampleRegistration(),
    });
    expectFailure(unproven, 400, 14);
    expect((await update({ require_verified_phone: 0 })).body.data.company.require_verified_phone).toBe(0);
    expect((await stored()).require_verified_phone).toBe(false);
  });

  it('removes with null: a template, the app hash, a limit back to its default, every country again', async () => {
    await applied({ sms_text: { templates: { fr: '{code} est votre code {brand}.' } }, limits: { sms_per_prefix_per_hour: 7 } });
    const answer = await applied({
      sms_countries: 'all',
      sms_text: { templates: { fr: null }, app_hash: null, webotp_domain: '' },
      limits: { sms_per_hour: null, sms_per_prefix_per_hour: null },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const { company: shown } = answer.body.data;
    expect(Object.keys(shown.sms_text.templates)).not.toContain('fr');
    expect(shown.sms_text).toMatchObject({ app_hash: null, webotp_domain: null });
    expect(shown.sms_countries).toBe('all');
    expect(shown.warnings).toEqual([expect.stringContaining('SMS may go to every country')]);
    expect(shown.limits.sms_per_hour).toMatchObject({ value: service.app.config.otp.sendsPerCompanyPerHour, source: 'default' });
    expect(shown.limits.sms_per_prefix_per_hour).toMatchObject({ source: 'default' });
    const after = await stored();
    expect(after.sms_countries).toBeUndefined();
    expect(after.sms_per_hour).toBeUndefined();
    expect(after.sms_text?.app_hash).toBeUndefined();
  });

  it('refuses a template that needs a third SMS with 400 code 1, its count in data, and changes and records nothing', async () => {
    const before = await stored();
    const reason = `ticket ${randomPhoneNumber()}: too long`;
    const answer = await update({ reason, sms_text: { templates: { en: THREE_SMS_TEMPLATE } } });
    expectFailure(answer, 400, 1);
    expect(answer.body.data.errors).toEqual([
      { code: 1, field: 'sms_text.templates.en', detail: expect.stringMatching(/^template en: the message would need 3 SMS/) },
    ]);
    expect(answer.body.data.sms_sizes.en).toEqual({ segments: 3, encoding: 'GSM-7', units: expect.any(Number) });
    // The other texts were sized too: a page shows every count.
    expect(answer.body.data.sms_sizes.hi).toMatchObject({ segments: 1 });
    expect(await stored()).toEqual(before);
    expect(await loggedWith(reason)).toEqual([]);
  });

  it('lists every problem of a change at once, on its field, as the command does', async () => {
    const before = await stored();
    const answer = await update({
      sms_text: { templates: { en: 'no code here', 'not a tag!': '{code}' }, app_hash: 'short', webotp_domain: 'localhost' },
      phone_change_texts: { hi: 'Your code is {code}' },
    });
    expectFailure(answer, 400, 1);
    expect(answer.body.data.errors.map((error: { field: string }) => error.field).sort()).toEqual([
      'phone_change_texts.hi',
      'sms_text.app_hash',
      'sms_text.templates.en',
      'sms_text.templates.not a tag!',
      'sms_text.webotp_domain',
    ]);
    expect(await stored()).toEqual(before);
  });

  it('sets and removes each security warning’s texts (warning_texts; phone_change_texts are the phone warning’s), each refusal on its field', async () => {
    const pinHindi = 'आपके {brand} खाते के लिए नया लॉगिन PIN माँगा गया। यह आपने नहीं किया तो ऐप में रद्द करें।';
    const newDevice = 'A new phone joined your {brand} account with a code. Not you? Open the {brand} app.';
    // A security setting (contract 3.14, round 6): asked by one admin, applied by another.
    const answer = await applied({ warning_texts: { login_pin: { HI: pinHindi }, new_device: { en: newDevice } } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const { company: shown } = answer.body.data;
    const { rules } = (await view()).body.data;
    expect(shown.warning_texts).toMatchObject({ login_pin: { hi: pinHindi }, new_device: { en: newDevice }, export: {} });
    expect(shown.warning_texts.phone).toEqual(shown.phone_change_texts);
    expect(shown.warning_sizes.login_pin.hi).toMatchObject({ encoding: 'UCS-2', segments: 2 });
    expect(shown.warning_sizes.new_device.en).toMatchObject({ encoding: 'GSM-7', segments: 1 });
    expect(rules.warning_kinds).toEqual([
      'phone',
      'login_pin',
      'transaction_pin',
      'device_remove',
      'delete',
      'profile',
      'export',
      'new_device',
    ]);
    expect(rules.built_in_warning_texts.new_device).toContain('{brand}');
    expect((await stored()).sms_text?.warning_texts).toEqual({ login_pin: { hi: pinHindi }, new_device: { en: newDevice } });

    const before = await stored();
    const refused = await update({
      warning_texts: { new_device: { en: 'Your {brand} code is {code}' }, phone: { fr: 'Appelez le 1234' } },
      phone_change_texts: { de: 'Ihr {brand} Konto zieht um.' },
    });
    expectFailure(refused, 400, 1);
    expect(refused.body.data.errors.map((error: { field: string }) => error.field).sort()).toEqual([
      'warning_texts.new_device.en',
      'warning_texts.phone.fr',
    ]);
    const tooLong = await update({ warning_texts: { profile: { en: `{brand}${'a'.repeat(299)}` } } });
    expectFailure(tooLong, 400, 1);
    expect(tooLong.body.data.errors).toEqual([
      {
        code: 1,
        field: 'warning_texts.profile.en',
        detail: expect.stringMatching(/^profile warning text en: the message would need 3 SMS/),
      },
    ]);
    expect(tooLong.body.data.warning_sizes.profile.en.segments).toBe(3);
    // An unknown warning is no setting of the body.
    expectFailure(await update({ warning_texts: { sim_swap: { en: 'Your {brand} SIM moved.' } } }), 400, 1);
    expect(await stored()).toEqual(before);

    const removed = await applied({ warning_texts: { login_pin: { hi: null }, new_device: { en: '' } } });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body.data.company.warning_texts.login_pin).toEqual({});
    expect((await stored()).sms_text?.warning_texts).toBeUndefined();
  });

  it('refuses a rename that makes a stored text need a third SMS, on name', async () => {
    const before = await stored();
    const answer = await update({ name: 'न'.repeat(150) });
    expectFailure(answer, 400, 1);
    // Each stored text the new name pushes over: the code texts (en, hi) and the Hindi warning, all on name.
    expect(answer.body.data.errors).toEqual([
      expect.objectContaining({ field: 'name', detail: expect.stringMatching(/^template en: the message would need \d SMS/) }),
      expect.objectContaining({ field: 'name', detail: expect.stringMatching(/^template hi: the message would need \d SMS/) }),
      expect.objectContaining({ field: 'name', detail: expect.stringMatching(/^phone-change text hi: the message would need \d SMS/) }),
    ]);
    expect(answer.body.data.phone_change_sizes.hi.segments).toBeGreaterThan(2);
    expect(await stored()).toEqual(before);
  });

  it('refuses what the command refuses before any text: unknown countries, a limit under its least value, nothing to change', async () => {
    const before = await stored();
    const fields = async (body: Record<string, unknown>) => {
      const answer = await update(body);
      expectFailure(answer, 400, 1);
      return answer.body.data.errors.map((error: { field: string }) => error.field);
    };
    expect(await fields({ sms_countries: ['IN', 'XX'] })).toEqual(['sms_countries']);
    expect(await fields({ sms_countries: [] })).toEqual(['sms_countries']);
    expect(await fields({ limits: { sms_per_hour: 0 } })).toEqual(['limits.sms_per_hour']);
    expect(await fields({ limits: { sms_per_prefix_per_hour: -1 } })).toEqual(['limits.sms_per_prefix_per_hour']);
    expect(await fields({ require_verified_phone: 2 })).toEqual(['require_verified_phone']);
    expect(await fields({ name: 'x'.repeat(201) })).toEqual(['name']);
    // Top-level null and "" count as absent (contract 1): nothing is left to change.
    expect(await fields({ sms_countries: null, name: '' })).toEqual(['body']);
    expect(await fields({ status: 'disabled' })).toEqual(['body']);
    expect(await stored()).toEqual(before);
  });
});

describe('company/update of a security setting, and company/approve', () => {
  it('waits for another admin: pending 1, nothing changed; the asker cannot approve it; the other applies it once', async () => {
    const before = await stored();
    const asked = await update({ sms_countries: ['IN'], limits: { sms_per_hour: 4321 } });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    expect(asked.body.data).toMatchObject({
      pending: 1,
      grant_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      approve_by: expect.any(Number),
    });
    expect(asked.body.data.message).toContain('sms_countries');
    // The answer shows the settings as they still are; the whole change waits, the limit with it.
    expect(asked.body.data.company.limits.sms_per_hour.value).toBe(before.sms_per_hour ?? service.app.config.otp.sendsPerCompanyPerHour);
    expect(await stored()).toEqual(before);
    expectFailure(await approve(asked.body.data.grant_id, admin.session), 403, 5);
    const approved = await approve(asked.body.data.grant_id);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.data).toMatchObject({ pending: 0, grant_id: asked.body.data.grant_id });
    expect(approved.body.data.company.sms_countries).toEqual(['IN']);
    expect((await stored()).sms_per_hour).toBe(4321);
    expectFailure(await approve(asked.body.data.grant_id, (await staffMember(service, company, 'admin')).session), 404, 6);
    expect((await applied({ sms_countries: 'all', limits: { sms_per_hour: null } })).status).toBe(200);
  });

  it('takes require_dpop and sms_payment_limit as security settings: one admin alone turns DPoP off or raises what an SMS code pays by nothing', async () => {
    const before = await stored();
    const asked = await update({ require_dpop: 1, sms_payment_limit: { EUR: '100', INR: '2000' } });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    expect(asked.body.data).toMatchObject({ pending: 1, company: { require_dpop: 0, sms_payment_limit: {} } });
    expect(await stored()).toEqual(before);
    const approved = await approve(asked.body.data.grant_id);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.data.company).toMatchObject({ require_dpop: 1, sms_payment_limit: { EUR: '100', INR: '2000' } });
    expect(await stored()).toMatchObject({ require_dpop: true, sms_payment_limit: { EUR: '100', INR: '2000' } });
    for (const [body, field] of [
      [{ require_dpop: 2 }, 'require_dpop'],
      [{ sms_payment_limit: { EURO: '1' } }, 'sms_payment_limit'],
      [{ sms_payment_limit: { EUR: '-1' } }, 'sms_payment_limit.EUR'],
    ] as const) {
      const refused = await update(body);
      expectFailure(refused, 400, 1);
      expect(refused.body.data.errors.map((error: { field: string }) => error.field).join(' ')).toContain(field);
    }
    const off = await applied({ require_dpop: 0, sms_payment_limit: 'none' });
    expect(off.body.data.company).toMatchObject({ require_dpop: 0, sms_payment_limit: {} });
  });

  it('applies what is no security setting at once (pending 0); a grant of the role kind is no company grant (404 code 6)', async () => {
    const answer = await update({ limits: { sms_per_prefix_per_hour: 9 } });
    expect(answer.body.data.pending).toBe(0);
    expect((await stored()).sms_per_prefix_per_hour).toBe(9);
    const agent = await staffMember(service, company, 'none');
    const roleGrant = await invoke(service.handlers.adminEmployeeRole, {
      path: '/r',
      headers: { CompanyID: company.company_id, Authorization: admin.session },
      body: { user_id: agent.userId, role: 'support', reason: 'x' },
    });
    expectFailure(await approve(roleGrant.body.data.grant_id), 404, 6);
    expect((await update({ limits: { sms_per_prefix_per_hour: null } })).status).toBe(200);
  });
});

describe('who may', () => {
  it('refuses support, an employee without a role and a customer (403 code 5), and a call without a reason (400 code 1)', async () => {
    const before = await stored();
    const support = await staffMember(service, company, 'support');
    const noRole = await staffMember(service, company, 'none');
    const customer = await signUp(service, company);
    const customerSession = await logIn(service, company, customer);
    for (const session of [support.session, noRole.session, customerSession]) {
      expectFailure(await call('adminCompanyView', session, { reason: 'x' }), 403, 5);
      expectFailure(await update({ require_verified_phone: 0 }, session), 403, 5);
    }
    expectFailure(await call('adminCompanyView', admin.session, {}), 400, 1);
    expectFailure(await call('adminCompanyUpdate', admin.session, { require_verified_phone: 0 }), 400, 1);
    expectFailure(await call('adminCompanyUpdate', admin.session, { require_verified_phone: 0, reason: '  ' }), 400, 1);
    expect(await stored()).toEqual(before);
  });

  it('changes its own company only: another company’s admin changes theirs with the same body', async () => {
    const other = await newCompany(service);
    const otherAdmin = await staffMember(service, other, 'admin');
    const before = await stored();
    const answer = await call('adminCompanyUpdate', otherAdmin.session, { reason: 'x', limits: { sms_per_hour: 42 } }, other.company_id);
    expect(answer.body.data.company.company_id).toBe(other.company_id);
    expect((await stored(other)).sms_per_hour).toBe(42);
    expect(await stored()).toEqual(before);
    // This company's token under the other company's id is no session there.
    expectFailure(await call('adminCompanyUpdate', admin.session, { reason: 'x', limits: { sms_per_hour: 1 } }, other.company_id), 401, 4);
  });
});

describe('npm run staff:actions', () => {
  it('prints the company’s views and changes of its settings, with who and why', async () => {
    const reason = `ticket ${randomPhoneNumber()}: printed`;
    expect((await view(reason)).status).toBe(200);
    expect((await update({ reason, limits: { sms_per_hour: 900 } })).status).toBe(200);
    const run = await runOperator(staffActions, ['--company', company.company_id, '--actor', admin.userId, '--days', '1']);
    expect(run.code, run.stderr).toBe(0);
    const printed = run.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((line) => line.reason === reason);
    expect(printed).toEqual([
      expect.objectContaining({ action: 'company_view', actor_id: admin.userId, user_id: null }),
      expect.objectContaining({ action: 'company_update', actor_id: admin.userId, user_id: null }),
    ]);
  });
});
