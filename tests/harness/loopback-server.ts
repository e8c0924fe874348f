import type { Server } from 'node:http';

/** A server listening on a free loopback port: its base URL, and a close that drops open connections. */
export async function listenOnLoopback(server: Server): Promise<{ endpoint: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    endpoint: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
