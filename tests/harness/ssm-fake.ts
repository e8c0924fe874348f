import { createServer, type Server } from 'node:http';
import { listenOnLoopback } from './loopback-server.js';

// A loopback endpoint that answers like AWS Systems Manager Parameter Store's GetParameter and
// PutParameter (the JSON protocol: X-Amz-Target AmazonSSM.<action>), keeping every version of
// each parameter and its type, so the real @aws-sdk/client-ssm is exercised end to end without AWS.

export interface FakeSsm {
  endpoint: string;
  /** Stores a new version of a parameter (as PutParameter --overwrite does); returns its version. */
  put(name: string, value: string): number;
  /** Every GetParameter name asked for, in order (with ":version" when one was). */
  requests: string[];
  /** The type each PutParameter gave a parameter (SecureString, String). */
  types: Map<string, string>;
  /** The error code the next calls fail with (AccessDeniedException, ThrottlingException, ...), or undefined. */
  failWith: string | undefined;
  /** How many calls fail with failWith before it is cleared; undefined: every call until it is. */
  failuresLeft: number | undefined;
  close(): Promise<void>;
}

export async function startFakeSsm(): Promise<FakeSsm> {
  const versions = new Map<string, string[]>();
  const fake: FakeSsm = {
    endpoint: '',
    requests: [],
    types: new Map(),
    failWith: undefined,
    failuresLeft: undefined,
    put: (name, value) => {
      const list = versions.get(name) ?? [];
      list.push(value);
      versions.set(name, list);
      return list.length;
    },
    close: async () => {},
  };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const reply = (status: number, payload: unknown) => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        response.end(JSON.stringify(payload));
      };
      const {
        Name = '',
        Value,
        Type,
        Overwrite,
      } = JSON.parse(body || '{}') as { Name?: string; Value?: string; Type?: string; Overwrite?: boolean };
      if (String(request.headers['x-amz-target']).endsWith('.PutParameter')) {
        if (versions.has(Name) && !Overwrite) return reply(400, { __type: 'ParameterAlreadyExists', message: `${Name} exists.` });
        fake.types.set(Name, Type ?? 'String');
        return reply(200, { Version: fake.put(Name, Value ?? ''), Tier: 'Standard' });
      }
      fake.requests.push(Name);
      if (fake.failWith) {
        const code = fake.failWith;
        if (fake.failuresLeft !== undefined && --fake.failuresLeft <= 0) [fake.failWith, fake.failuresLeft] = [undefined, undefined];
        return reply(400, { __type: code, message: `Simulated ${code}` });
      }
      const [name = '', selector] = Name.split(':');
      const list = versions.get(name);
      if (!list) return reply(400, { __type: 'ParameterNotFound', message: `Parameter ${name} not found.` });
      const version = selector === undefined ? list.length : Number(selector);
      const value = list[version - 1];
      if (value === undefined)
        return reply(400, { __type: 'ParameterVersionNotFound', message: `Version ${selector} of ${name} not found.` });
      reply(200, { Parameter: { Name: name, Type: 'SecureString', Value: value, Version: version, DataType: 'text' } });
    });
  });
  Object.assign(fake, await listenOnLoopback(server));
  return fake;
}
