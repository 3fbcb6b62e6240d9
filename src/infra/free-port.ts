import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A port free on `host` now: what PORT=0 ("any port") becomes where the port must be known before listening. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
