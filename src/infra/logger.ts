import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Query parameters whose values are credentials: the marketplace's authorization codes on the
 * connections pages' callbacks (redeemable for a refresh token until used) and any other
 * authorization response's `code`.
 */
const CREDENTIAL_PARAMETERS = ['code', 'spapi_oauth_code'];

/** A request URL as the logs may hold it: the values of credential parameters withheld. */
export function loggableUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const query = new URLSearchParams(url.slice(at + 1));
  const found = CREDENTIAL_PARAMETERS.filter((name) => query.has(name));
  for (const name of found) query.set(name, 'withheld');
  return found.length ? `${url.slice(0, at)}?${query}` : url;
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  headers?: Record<string, string | string[] | undefined>;
  socket?: { remotePort?: number };
}

// fastify's own request fields (its lib/logger-pino.js), which a logger's serializers replace
const serializers = {
  req: (req: LoggedRequest) => ({
    method: req.method,
    url: loggableUrl(req.url),
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
};

export function createLogger(level: string, name = 'service'): Logger {
  return pino({ level, name, base: { pid: process.pid }, serializers });
}
