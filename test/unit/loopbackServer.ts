/**
 * Listening on 127.0.0.1 for the tests' loopback servers (the Hub, the models URL): the endpoint, and a
 * close that also drops open connections (a server that went away mid-download).
 */
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export async function listenLoopback(server: Server): Promise<{ endpoint: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
