import type * as z from 'zod/mini';
import { endpoints, type OperationName } from '../../../lib/api/endpoints.js';
import type { Endpoint } from '../../../lib/http/endpoint.js';
import type { EndpointName } from '../in-process-service.js';

// What the generators know of each endpoint, read from the route table (lib/api/endpoints.ts):
// its method and path, and the fields its body (or query) takes. A new endpoint needs nothing here.

export type { EndpointName };

/**
 * Sent after the others: a logout that succeeds ends one of the fixture's sessions. The rest go
 * in the route table's order. userPhoneChange and userDelete need not wait: the fixture's sessions
 * began by registration, so a phone change is refused them (400 code 14), never made, and a
 * deletion is refused too (400 code 14), never done.
 */
const LAST: OperationName = 'logout';

/** Any other route: it has no endpoint of its own (functions/not-found.ts). */
const NOT_FOUND = { method: 'POST', path: '/wallet/v3/auth/nothing_here' };

/** An endpoint of the route table, as the Endpoint type describes every one. */
const endpointOf = (name: OperationName): Endpoint => endpoints[name];

const operations: OperationName[] = [...(Object.keys(endpoints) as OperationName[]).filter((name) => name !== LAST), LAST];

/** Every endpoint's method and path, notFound's last, in the order a run sends them (see LAST). */
export const PATHS = Object.fromEntries([
  ...operations.map((name) => [name, { method: endpointOf(name).method, path: endpointOf(name).path }]),
  ['notFound', NOT_FOUND],
]) as Record<EndpointName, { method: string; path: string }>;

/**
 * The keys of the object a schema takes, looking through lazy, pipes (the input side first; a
 * preprocess there has no shape) and optional, default and the like; undefined if none is found.
 */
export function fieldsOf(schema: z.core.$ZodType): string[] | undefined {
  const def = schema._zod.def;
  switch (def.type) {
    case 'object':
      return Object.keys((def as z.core.$ZodObjectDef).shape);
    case 'lazy':
      return fieldsOf((def as z.core.$ZodLazyDef).getter());
    case 'union': {
      // step_up's: the device's fields, or a passkey assertion (contract 3.15): every option's fields.
      const options = (def as z.core.$ZodUnionDef).options.map((option) => fieldsOf(option));
      return options.every((fields) => fields !== undefined) ? [...new Set(options.flat() as string[])] : undefined;
    }
    case 'pipe': {
      const pipe = def as z.core.$ZodPipeDef;
      return fieldsOf(pipe.in) ?? fieldsOf(pipe.out);
    }
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return fieldsOf((def as z.core.$ZodOptionalDef).innerType);
    default:
      return undefined;
  }
}

/**
 * Fields an endpoint reads that its schema's shape does not show: user_register's preprocess
 * takes location_poin (the seed's spelling) as location_point before the shape sees the body.
 */
const FIELDS_BEFORE_THE_SHAPE: Partial<Record<OperationName, string[]>> = { userRegister: ['location_poin'] };

/**
 * What an endpoint that reads no field (no body, or an empty one, and no query) is sent: a body
 * naming a user, which it must ignore, since the token names the user.
 */
const IGNORED_FIELDS = ['user_id'];

/** The keys of the endpoint's body or query schema ([] if it takes none); throws if the schema is no object fieldsOf can see. */
function fieldsFor(name: OperationName, part: 'body' | 'query'): string[] {
  const schema = endpointOf(name)[part];
  if (!schema) return [];
  const fields = fieldsOf(schema);
  if (!fields) throw new Error(`${name}: no object shape found in its ${part} schema (fieldsOf)`);
  return fields;
}

/**
 * The fields a body is sent with: its schema's, or for a GET with a query and no body
 * (notifications) the query's, in a body that must ignore them; else IGNORED_FIELDS.
 */
function bodyFields(name: OperationName): string[] {
  const fields = [
    ...(endpointOf(name).body ? fieldsFor(name, 'body') : fieldsFor(name, 'query')),
    ...(FIELDS_BEFORE_THE_SHAPE[name] ?? []),
  ];
  return fields.length ? fields : IGNORED_FIELDS;
}

/** The fields of each endpoint's body that the generators drop, set to near misses or junk, or repeat. */
export const FIELDS = Object.fromEntries(operations.map((name) => [name, bodyFields(name)])) as Record<OperationName, string[]>;

/** Whether the endpoint takes a query string (its schema in the route table). */
export const takesQuery = (name: EndpointName) => name !== 'notFound' && endpointOf(name).query !== undefined;

export const isGet = (endpoint: EndpointName) => PATHS[endpoint].method === 'GET';

/** The names the endpoints' query strings take, each once. */
export const QUERY_FIELDS = [...new Set(operations.flatMap((name) => fieldsFor(name, 'query')))];
