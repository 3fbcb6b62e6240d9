import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

// A TCP relay to a real server that a test can cut: `down()` drops every open connection and
// refuses new ones until `up()`. It stands in for the network between us and PostgreSQL, not for
// any code of ours.

/** knex's own log (createDb's `log`) for the connections a test cuts on purpose: nothing printed. */
export const QUIET_KNEX_LOG = { warn() {}, error() {}, debug() {}, deprecate() {} };

export interface TcpProxy {
  port: number;
  down(): void;
  up(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let open = true;
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server = createServer((client) => {
    track(client);
    if (!open) return void client.destroy();
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    down() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    up() {
      open = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
