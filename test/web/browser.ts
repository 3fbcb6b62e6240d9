import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { Redis } from 'ioredis';
import { createEventStore } from '../../src/eventstore/index.js';
import type { EventStore } from '../../src/eventstore/port.js';
import type { Knex } from '../../src/infra/db.js';
import { createMailer } from '../../src/infra/mail.js';
import { buildHttpServer, type HttpServerDeps } from '../../src/mcp/server.js';
import { deleteKeys } from '../../src/infra/redis.js';
import { parseKeyring, type Keyring } from '../../src/secrets/vault.js';
import { TEST_REDIS_PREFIX } from '../support/env.js';

// The account pages as a browser sees them: a real listening server, and a client that keeps
// cookies, follows nothing by itself, and fills forms' CSRF fields from the page it last read.

export interface Site {
  base: string;
  store: EventStore;
  /** every log line the server wrote, parsed */
  logs: Record<string, unknown>[];
  /** the links of the mail the server "sent" (the development transport logs them) */
  mailLinks(to: string): string[];
  close(): Promise<void>;
}

let sites = 0;

/** The vault key the sites of a test run seal TOTP secrets with, unless told another keyring. */
export const TEST_SECRETS_KEYS = `web-test:${randomBytes(32).toString('base64')}`;

export async function serveSite(
  db: Knex,
  {
    keyring = parseKeyring(TEST_SECRETS_KEYS),
    ...options
  }: {
    publicBaseUrl?: string;
    now?: () => Date;
    keyring?: Keyring;
    /** serves the console's Settings with these */
    settings?: HttpServerDeps['settings'];
  } = {},
): Promise<Site> {
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logs.push(JSON.parse(line));
      done();
    },
  });
  const logger = pino({ level: 'info' }, sink);
  const store = createEventStore({ DATABASE_URL: process.env.DATABASE_URL! });
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  // a prefix per site: one test's attempts never count against another's
  const prefix = `${TEST_REDIS_PREFIX}:web${++sites}`;
  const app = buildHttpServer({
    db,
    logger,
    authenticate: async () => null,
    demoUserId: '00000000-0000-4000-8000-000000000000',
    store,
    ...options,
    accounts: {
      mail: createMailer({ from: 'test <t@localhost>', env: 'test', logger }),
      rateLimit: { redis, prefix },
      keyring,
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    store,
    logs,
    mailLinks: (to) =>
      logs
        .map((l) => l.mail as { to: string[]; text: string } | undefined)
        .filter((m) => m?.to.includes(to))
        .flatMap((m) => m!.text.match(/https?:\/\/\S+/g) ?? []),
    async close() {
      await app.close();
      await store.close();
      await deleteKeys(redis, `${prefix}:*`);
      redis.disconnect();
    },
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

export class Browser {
  readonly cookies = new Map<string, string>();
  /** the CSRF token of the last page read that had a form */
  csrf = '';

  constructor(readonly base: string) {}

  private async request(path: string, init: RequestInit): Promise<Answer> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(new URL(path, this.base), {
      ...init,
      redirect: 'manual',
      headers: { accept: 'text/html', ...(cookie ? { cookie } : {}), ...(init.headers as Record<string, string>) },
    });
    for (const set of res.headers.getSetCookie()) {
      const [pair] = set.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(set)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(text);
    if (token) this.csrf = token[1]!;
    return { status: res.status, headers: res.headers, text, location: res.headers.get('location') };
  }

  get(path: string): Promise<Answer> {
    return this.request(path, { method: 'GET' });
  }

  /** posts a form with the last page's CSRF token (unless `_csrf` is given) */
  post(path: string, fields: Record<string, string>): Promise<Answer> {
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: this.csrf, ...fields }).toString(),
    });
  }

  /** opens a form page then posts it, as a person would */
  async submit(formPath: string, action: string, fields: Record<string, string>): Promise<Answer> {
    await this.get(formPath);
    return this.post(action, fields);
  }
}
