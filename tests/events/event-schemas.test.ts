// docs/events.md, the subscribers' contract: one JSON Schema of `detail` per event type of the
// code, each refusing a field it does not name (so no phone or email can slip into an event
// unnoticed), and rule patterns that match the events they are for. Every event the walk-through
// tests publish is checked against these schemas in tests/events/events.test.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EVENT_SOURCE, EVENT_TYPES } from '../../lib/events/event-types.js';
import { STAFF_ACTIONS } from '../../lib/staff/staff-actions.js';
import { SESSION_END_REASONS } from '../../lib/store/session-store.js';
import { detailSchemas, detailValidators, EVENTS_PAGE, eventSchemaProblems, jsonBlocks } from './event-schema.js';

const page = readFileSync(EVENTS_PAGE, 'utf8');
const schemas = detailSchemas(page);
const BASE_FIELDS = ['event_id', 'company_id', 'user_id', 'occurred_at'];

/** A detail of each type as the publisher writes one (an AWS stream record's id). */
const sampleDetail = (type: string): Record<string, unknown> => {
  const own: Record<string, Record<string, unknown>> = {
    'user.profile_updated': { changed: ['first_name', 'image'] },
    'user.deleted': { erase_after: 1_795_000_000 },
    'session.ended': { sid: 'ab'.repeat(16), reason: 'logout' },
    'pin.locked': { pin_type: 'transaction' },
    'admin.action': { actor_id: '2d'.repeat(16), action: 'role', seq: 42, record_hash: '5e'.repeat(32) },
    'user.phone_change_pending': { change_id: '3c'.repeat(16), effective_at: 1_795_086_400, via: 'user' },
    'user.phone_change_cancelled': { change_id: '3c'.repeat(16) },
    'user.change_pending': { change_id: '3c'.repeat(16), kind: 'login_pin', effective_at: 1_795_086_400, via: 'user' },
    'user.change_cancelled': { change_id: '3c'.repeat(16), kind: 'login_pin', reason: 'pin_proven' },
    'device.added': { settled: 0 },
    'passkey.added': { passkey_id: '4b'.repeat(16) },
    'passkey.removed': { passkey_id: '4b'.repeat(16) },
    'passkey.cloned': { passkey_id: '4b'.repeat(16) },
  };
  return {
    event_id: 'c4ca4238a0b923820dcc509a6f75849b',
    company_id: '0f'.repeat(16),
    user_id: '1e'.repeat(16),
    occurred_at: 1_795_627_356_481,
    ...own[type],
  };
};

describe('docs/events.md', () => {
  it('has one JSON Schema (draft 2020-12) of detail per event type of lib/events/event-types.ts, titled with it', () => {
    const titles = schemas.map((schema) => schema.title);
    expect(titles).toHaveLength(EVENT_TYPES.length);
    expect([...titles].sort()).toEqual([...EVENT_TYPES].sort());
    for (const schema of schemas) expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  it('makes every schema closed: each field it names is required, and no other is allowed', () => {
    for (const schema of schemas) {
      const properties = Object.keys(schema.properties as object);
      expect(schema.additionalProperties, String(schema.title)).toBe(false);
      expect(properties.slice(0, BASE_FIELDS.length), String(schema.title)).toEqual(BASE_FIELDS);
      // admin.action names a user only when the action did (API contract 3.13): its one field not required.
      const optional = schema.title === 'admin.action' ? ['user_id'] : [];
      expect([...(schema.required as string[])].sort(), String(schema.title)).toEqual(
        properties.filter((name) => !optional.includes(name)).sort(),
      );
    }
  });

  it('accepts each type’s detail as the publisher writes it, a second event of a record and a DynamoDB Local id included', () => {
    for (const type of EVENT_TYPES) expect(eventSchemaProblems({ 'detail-type': type, detail: sampleDetail(type) }), type).toEqual([]);
    const second = { ...sampleDetail('user.phone_changed'), event_id: 'c4ca4238a0b923820dcc509a6f75849b.1' };
    expect(eventSchemaProblems({ 'detail-type': 'user.phone_changed', detail: second })).toEqual([]);
    const local = { ...sampleDetail('user.registered'), event_id: '542e2f81-ace6-45d5-8537-91ff03c0d546' };
    expect(eventSchemaProblems({ 'detail-type': 'user.registered', detail: local })).toEqual([]);
  });

  it.each(EVENT_TYPES)('refuses a %s detail carrying a phone number or an email, or missing a field', (type) => {
    const problems = (detail: Record<string, unknown>) => eventSchemaProblems({ 'detail-type': type, detail });
    expect(problems({ ...sampleDetail(type), phone_number: '+12025550123' })).toEqual([
      expect.stringContaining('must NOT have additional properties'),
    ]);
    expect(problems({ ...sampleDetail(type), email: 'ada@example.com' })).not.toEqual([]);
    for (const field of Object.keys(sampleDetail(type))) {
      const { [field]: _, ...without } = sampleDetail(type);
      // admin.action without a user is a search that found nobody, or the company's settings: allowed.
      if (type === 'admin.action' && field === 'user_id') {
        expect(problems(without)).toEqual([]);
        continue;
      }
      expect(problems(without), `${type} without ${field}`).toEqual([expect.stringContaining(`must have required property '${field}'`)]);
    }
  });

  it('names the reasons a session ends as the code does, and refuses a value in place of a field name', () => {
    const ended = schemas.find((schema) => schema.title === 'session.ended')!;
    expect((ended.properties as { reason: { enum: string[] } }).reason.enum).toEqual([...SESSION_END_REASONS]);
    const validate = detailValidators(page).get('user.profile_updated')!;
    expect(validate({ ...sampleDetail('user.profile_updated'), changed: ['Ada'] })).toBe(false);
    expect(validate({ ...sampleDetail('user.profile_updated'), changed: [] })).toBe(false);
  });

  it('names the back office’s actions as the code does (lib/staff/staff-actions.ts)', () => {
    const action = schemas.find((schema) => schema.title === 'admin.action')!;
    expect((action.properties as { action: { enum: string[] } }).action.enum).toEqual([...STAFF_ACTIONS]);
  });

  it('gives rule patterns that match the events they are for and no other', () => {
    const patterns = jsonBlocks(page).filter(
      (block): block is Record<string, string[]> =>
        typeof block === 'object' && block !== null && Array.isArray((block as Record<string, unknown>)['detail-type']),
    );
    expect(patterns.map((pattern) => pattern['detail-type'])).toEqual([['session.ended'], ['user.erased']]);
    // EventBridge's matching for patterns of value lists, as these are.
    const matches = (pattern: Record<string, string[]>, event: Record<string, string>) =>
      Object.entries(pattern).every(([key, values]) => values.includes(event[key]!));
    for (const pattern of patterns) {
      expect(pattern.source).toEqual([EVENT_SOURCE]);
      const matched = EVENT_TYPES.filter((type) => matches(pattern, { source: EVENT_SOURCE, 'detail-type': type }));
      expect(matched).toEqual(pattern['detail-type']);
    }
  });
});
