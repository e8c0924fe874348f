import { randomUUID } from 'node:crypto';
import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

// A loopback HTTP proxy in front of DynamoDB Local that injects faults at the network
// boundary, so the real SDK client (its timeouts, retries and error parsing) meets them.

export type FaultMode =
  /** Forward to DynamoDB and return its answer. */
  | 'pass'
  /** Accept the request and never answer: a slow or stuck table. */
  | 'hang'
  /** Close the connection at once. */
  | 'reset'
  /** Answer HTTP 400 ThrottlingException, as DynamoDB does when over capacity. */
  | 'throttle'
  /** Forward to DynamoDB, then never answer: the write happened, its answer was lost. */
  | 'lose-answer'
  /** Forward to DynamoDB, then reset the client's connection: applied, the answer dropped on the way back. */
  | 'drop-answer'
  /** Hold the request for lateMs (past the client's timeout), or until releaseLate(), then forward it: applied late, unseen. */
  | 'late'
  /** Answer TransactionCanceledException for a conflict with another transaction (TransactWriteItems only). */
  | 'conflict'
  /** Answer HTTP 500 InternalServerError. */
  | 'server-error';

/** The faults a run with a fault share draws from (npm run chaos, npm run fuzz): each one a real network's, none that never ends. */
export const SHARED_FAULTS: FaultMode[] = ['reset', 'throttle', 'server-error', 'drop-answer', 'late'];

export interface DynamoRequest {
  /** The DynamoDB operation, from X-Amz-Target: GetItem, TransactWriteItems ... */
  operation: string;
  /** The request's JSON text. */
  body: string;
  mode: FaultMode;
  /** performance.now() when it arrived. */
  at: number;
}

export interface FaultProxy {
  endpoint: string;
  /** Decides what happens to each request; everything passes until a test says otherwise. */
  rule: (request: Pick<DynamoRequest, 'operation' | 'body'>) => FaultMode;
  /** Every request received, with what was done to it. */
  seen: DynamoRequest[];
  /** How long 'late' holds a request before forwarding it; Infinity holds it until releaseLate(). */
  lateMs: number;
  /**
   * Forwards at once every request 'late' holds, whatever its lateMs. Resolves once DynamoDB has
   * answered each and the answer has reached its caller (or the caller was gone).
   */
  releaseLate(): Promise<void>;
  /** Down: new connections are refused and open ones are cut. Up: listening again on the same port. */
  setReachable(reachable: boolean): Promise<void>;
  /** Pass everything again and forget what was seen; ends requests left hanging (those held until releaseLate() are never forwarded). */
  reset(): void;
  close(): Promise<void>;
}

const THROTTLING_BODY = JSON.stringify({
  __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException',
  message: 'Rate of requests exceeds the allowed throughput.',
});

function throttle(response: ServerResponse): void {
  response.writeHead(400, {
    'content-type': 'application/x-amz-json-1.0',
    'x-amzn-errortype': 'ThrottlingException',
    'x-amzn-requestid': randomUUID(),
  });
  response.end(THROTTLING_BODY);
}

function conflict(response: ServerResponse, body: Buffer): void {
  const items = (JSON.parse(body.toString('utf8')) as { TransactItems?: unknown[] }).TransactItems ?? [{}];
  response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': randomUUID() });
  response.end(
    JSON.stringify({
      __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
      message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict]',
      CancellationReasons: items.map(() => ({ Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' })),
    }),
  );
}

function serverError(response: ServerResponse): void {
  response.writeHead(500, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': randomUUID() });
  response.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Internal server error' }));
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true });
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  /** Requests 'late' holds: each forwarded when its time comes or releaseLate() is called, whichever is first. */
  const held = new Map<ServerResponse, { timed: boolean; release: () => Promise<void> }>();

  const forward = (
    request: IncomingMessage,
    body: Buffer,
    answer: (upstreamResponse: IncomingMessage, data: Buffer) => void,
    failed: () => void = () => {},
  ) => {
    const outgoing = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: request.headers, agent },
      (upstreamResponse) => {
        const chunks: Buffer[] = [];
        upstreamResponse.on('data', (chunk: Buffer) => chunks.push(chunk));
        upstreamResponse.on('end', () => answer(upstreamResponse, Buffer.concat(chunks)));
      },
    );
    outgoing.on('error', () => {
      request.socket.destroy();
      failed();
    });
    outgoing.end(body);
  };

  const proxy: FaultProxy = {
    endpoint: '',
    rule: () => 'pass',
    seen: [],
    lateMs: 1_500,
    releaseLate: async () => {
      await Promise.all([...held.values()].map((request) => request.release()));
    },
    setReachable: async () => {},
    reset: () => {
      proxy.rule = () => 'pass';
      proxy.seen = [];
      for (const response of hanging) response.socket?.destroy();
      hanging.clear();
      for (const [response, request] of held) if (!request.timed) held.delete(response);
    },
    close: async () => {},
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const operation =
        String(request.headers['x-amz-target'] ?? '')
          .split('.')
          .pop() ?? '';
      const mode = proxy.rule({ operation, body: body.toString('utf8') });
      proxy.seen.push({ operation, body: body.toString('utf8'), mode, at: performance.now() });
      switch (mode) {
        case 'hang':
          hanging.add(response);
          return;
        case 'reset':
          request.socket.destroy();
          return;
        case 'throttle':
          throttle(response);
          return;
        case 'lose-answer':
          hanging.add(response);
          forward(request, body, () => {});
          return;
        case 'drop-answer':
          forward(request, body, () => request.socket.destroy());
          return;
        case 'late': {
          hanging.add(response);
          let closed = false;
          let onClose = () => {};
          response.once('close', () => {
            closed = true;
            onClose();
          });
          const release = () =>
            new Promise<void>((landed) => {
              clearTimeout(timer);
              held.delete(response);
              hanging.delete(response);
              forward(
                request,
                body,
                (upstreamResponse, data) => {
                  if (closed || response.destroyed || response.socket?.destroyed) return landed();
                  onClose = landed;
                  response.writeHead(upstreamResponse.statusCode ?? 500, upstreamResponse.headers);
                  response.end(data);
                },
                landed,
              );
            });
          const timed = Number.isFinite(proxy.lateMs);
          const timer = timed ? setTimeout(release, proxy.lateMs).unref() : undefined;
          held.set(response, { timed, release });
          return;
        }
        case 'conflict':
          conflict(response, body);
          return;
        case 'server-error':
          serverError(response);
          return;
        case 'pass':
          forward(request, body, (upstreamResponse, data) => {
            response.writeHead(upstreamResponse.statusCode ?? 500, upstreamResponse.headers);
            response.end(data);
          });
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });

  await listen(0);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  proxy.endpoint = `http://127.0.0.1:${port}`;
  proxy.setReachable = async (reachable) => {
    if (reachable && !server.listening) await listen(port);
    if (!reachable && server.listening) await stop();
  };
  proxy.close = async () => {
    proxy.reset();
    if (server.listening) await stop();
    agent.destroy();
  };
  return proxy;
}

/** A rule that applies a fault to matching requests only and passes the rest. */
export function faultWhen(matches: (request: Pick<DynamoRequest, 'operation' | 'body'>) => boolean, mode: FaultMode) {
  return (request: Pick<DynamoRequest, 'operation' | 'body'>): FaultMode => (matches(request) ? mode : 'pass');
}
