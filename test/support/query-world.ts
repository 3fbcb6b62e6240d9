import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pino } from 'pino';
import type { AccountEvent } from '../../src/domain/account/events.js';
import { stableId } from '../../src/domain/shared/ids.js';
import type { UserEvent } from '../../src/domain/user/events.js';
import { generateApiToken, hashToken } from '../../src/domain/user/token.js';
import { createDb, type Knex } from '../../src/infra/db.js';
import { tokenAuthenticator } from '../../src/mcp/auth.js';
import { buildHttpServer } from '../../src/mcp/server.js';
import type { ViewDefinition } from '../../src/projections/views/definition.js';
import { migrateViews } from '../../src/projections/views/migrate.js';
import { viewDefinitions } from '../../src/projections/views/registry.js';
import { prepareReadModels, project } from './seed.js';

// A world for query_data tests: users with seller and vendor accounts, a test table in the
// read-model schema with rows for each account, and two test-only views over it (one
// seller, one vendor), registered only here, so the suites don't depend on the data views.

const testColumns: ViewDefinition<string>['columns'] = [
  { name: 'account_id', type: 'uuid', unit: null, nullable: false, description: 'the account' },
  { name: 'n', type: 'integer', unit: 'count', nullable: false, description: 'a number' },
  { name: 'sold_on', type: 'date', unit: null, nullable: false, description: 'a day' },
  { name: 'amount', type: 'bigint', unit: 'minor units of currency', nullable: false, description: 'money' },
  { name: 'note', type: 'text', unit: null, nullable: true, description: 'whose row this is' },
];

const testView = (name: string, audience: 'seller' | 'vendor'): ViewDefinition<string> => ({
  name,
  audience,
  grain: 'one row per test line',
  columns: testColumns,
  freshness: 'test data',
  joins: [],
  warnings: [],
  dateColumn: 'sold_on',
  sql: 'select t.account_id, t.n, t.sold_on, t.amount, t.note from rm.test_query_lines t',
});

export const TEST_VIEWS = [testView('v_test_lines', 'seller'), testView('v_test_vendor_lines', 'vendor')];

export interface World {
  db: Knex;
  base: string;
  users: { a: string; b: string; c: string; demo: string };
  accounts: { a1: string; a2: string; b1: string; c1: string; d1: string };
  tokens: { a: string; b: string; c: string };
  /** rows per account in the test table */
  rows: Record<'a1' | 'a2' | 'b1' | 'c1' | 'd1', number>;
  /** `headers` go with every request (X-Forwarded-For, say) */
  connect(path: '/mcp' | '/demo/mcp', token?: string, headers?: Record<string, string>): Promise<Client>;
  close(): Promise<void>;
}

function accountEvents(
  account_id: string,
  user_id: string,
  name: string,
  entity_type: 'seller' | 'vendor',
): AccountEvent[] {
  return [
    { type: 'AccountRegistered', data: { account_id, user_id, name, entity_type } },
    {
      type: 'SellingConnected',
      data: { account_id, connection_id: stableId(`selling:${account_id}`, 'S'), provider_id: `P-${name}` },
    },
  ];
}

/** `trustProxy`: the server's (fastify's) trusted proxies, absent none. */
export async function startWorld(options: { trustProxy?: string[] } = {}): Promise<World> {
  const db = createDb(process.env.DATABASE_URL!);
  await prepareReadModels(db);
  const users = { a: randomUUID(), b: randomUUID(), c: randomUUID(), demo: randomUUID() };
  const accounts = { a1: randomUUID(), a2: randomUUID(), b1: randomUUID(), c1: randomUUID(), d1: randomUUID() };
  const tokens = { a: generateApiToken(), b: generateApiToken(), c: generateApiToken() };
  const events: Array<AccountEvent | UserEvent> = [
    ...(['a', 'b', 'c'] as const).flatMap((k): UserEvent[] => [
      { type: 'UserRegistered', data: { user_id: users[k], name: k.toUpperCase() } },
      {
        type: 'ApiTokenIssued',
        data: { user_id: users[k], token_id: randomUUID(), token_hash: hashToken(tokens[k]), label: k },
      },
    ]),
    ...accountEvents(accounts.a1, users.a, 'North', 'seller'),
    ...accountEvents(accounts.a2, users.a, 'South', 'vendor'),
    ...accountEvents(accounts.b1, users.b, 'Other', 'seller'),
    ...accountEvents(accounts.c1, users.c, 'Busy', 'seller'),
    ...accountEvents(accounts.d1, users.demo, 'Demo', 'seller'),
  ];
  await project(db, events);

  const rows = { a1: 1200, a2: 10, b1: 50, c1: 3, d1: 600 };
  const notes = { a1: 'A', a2: 'A-VENDOR', b1: 'SECRET-B', c1: 'C', d1: 'DEMO' };
  await db.raw(
    `create table if not exists rm.test_query_lines (account_id uuid not null, n integer not null, sold_on date not null, amount bigint not null, note text)`,
  );
  for (const k of Object.keys(rows) as Array<keyof typeof rows>) {
    await db.raw(
      `insert into rm.test_query_lines select ?::uuid, n, date '2024-01-01' + (n % 365), n * 100, ? from generate_series(1, ?) n`,
      [accounts[k], notes[k], rows[k]],
    );
  }
  await db.transaction((trx) => migrateViews(trx, [...viewDefinitions, ...TEST_VIEWS]));

  const app = buildHttpServer({
    db,
    logger: pino({ level: 'silent' }),
    authenticate: tokenAuthenticator(db),
    demoUserId: users.demo,
    ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const clients: Client[] = [];
  return {
    db,
    base,
    users,
    accounts,
    tokens,
    rows,
    async connect(path, token, extra = {}) {
      const client = new Client({ name: 'query-data-test', version: '1.0.0' });
      const headers: Record<string, string> = { ...extra, ...(token ? { authorization: `Bearer ${token}` } : {}) };
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`), { requestInit: { headers } }));
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await app.close();
      await db.destroy();
    },
  };
}
