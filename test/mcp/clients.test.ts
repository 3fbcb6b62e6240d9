import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Transport1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fromJsonSchema, type JsonSchemaType } from '@modelcontextprotocol/server';
import { expect } from 'chai';
import { createDb, type Knex } from '../../src/infra/db.js';
import { serveMcp, type McpServing } from '../support/mcp.js';
import { accountWith, prepareReadModels, project } from '../support/seed.js';

// The clients agents really use, each against the service as it serves them: the SDK's 2.x
// client on revision 2026-07-28 and pinned to 2025-06-18, the 1.x client (2025-11-25), and the
// MCP Inspector's CLI on /demo/mcp. Each lists the tools, calls a read and a write, and checks
// every answer against the tool's outputSchema where the tool declares one.

const execFileP = promisify(execFile);
const INSPECTOR = fileURLToPath(
  new URL('../../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js', import.meta.url),
);

interface Listed {
  name: string;
  outputSchema?: Record<string, unknown>;
}
interface Answer {
  isError?: boolean;
  structuredContent?: unknown;
}
/** What every client here can do, whatever its API. */
interface Session {
  listTools(): Promise<Listed[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<Answer>;
}

const READ = { name: 'connection_status', args: {} };
const write = (account?: string) => ({
  name: 'create_automation',
  args: { stream_type: 'ORDER_CHANGE', code: 'function handle(event, context) {}', ...(account ? { account } : {}) },
});

/** Lists, then calls the read and the write: each answers, and as its outputSchema says when it has one. */
async function exercise(session: Session, account?: string): Promise<void> {
  const tools = await session.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const { name, args } of [READ, write(account)]) {
    expect(byName.has(name), `${name} listed`).to.equal(true);
    const answer = await session.callTool(name, args);
    expect(answer.isError, `${name}: ${JSON.stringify(answer.structuredContent)}`).to.not.equal(true);
    const schema = byName.get(name)!.outputSchema;
    if (!schema) continue;
    const checked = await fromJsonSchema(schema as JsonSchemaType)['~standard'].validate(answer.structuredContent);
    expect(checked.issues, `${name} against its outputSchema`).to.equal(undefined);
  }
}

describe('real MCP clients against the service', function () {
  this.timeout(60_000);
  let db: Knex;
  let mcp: McpServing;
  const user = randomUUID();
  const account = randomUUID();
  const demoUser = randomUUID();
  const opened: Array<{ close(): Promise<void> }> = [];

  before(async () => {
    db = createDb(process.env.DATABASE_URL!);
    await prepareReadModels(db);
    await project(db, [
      ...accountWith(account, user, 'Client Seller', 'seller', ['selling', 'ads']),
      ...accountWith(randomUUID(), demoUser, 'Demo Seller', 'seller', ['selling', 'ads']),
    ]);
    mcp = await serveMcp(db, () => new Date(), demoUser);
  });
  after(async () => {
    await Promise.all(opened.map((c) => c.close()));
    await mcp?.close();
    await db?.destroy();
  });

  const asUser = () => ({ authorization: `Bearer user.${user}` });

  /** a 2.x client of /mcp with these options, connected */
  async function client2(options: ConstructorParameters<typeof Client>[1]): Promise<Client> {
    const client = new Client({ name: 'clients-test', version: '1.0.0' }, options);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${mcp.base}/mcp`), { requestInit: { headers: asUser() } }),
    );
    opened.push(client);
    return client;
  }
  const session2 = (client: Client): Session => ({
    listTools: async () => (await client.listTools()).tools,
    callTool: (name, args) => client.callTool({ name, arguments: args }),
  });

  it('the 2.x client on revision 2026-07-28', async () => {
    const client = await client2({ versionNegotiation: { mode: { pin: '2026-07-28' } } });
    expect(client.getProtocolEra()).to.equal('modern');
    expect(client.getNegotiatedProtocolVersion()).to.equal('2026-07-28');
    await exercise(session2(client), account);
  });

  it('the 2.x client pinned to revision 2025-06-18', async () => {
    const client = await client2({ supportedProtocolVersions: ['2025-06-18'] });
    expect(client.getProtocolEra()).to.equal('legacy');
    expect(client.getNegotiatedProtocolVersion()).to.equal('2025-06-18');
    await exercise(session2(client), account);
  });

  it('the 2.x client negotiating on its own finds 2026-07-28', async () => {
    const client = await client2({ versionNegotiation: { mode: 'auto' } });
    expect(client.getNegotiatedProtocolVersion()).to.equal('2026-07-28');
  });

  it('the 1.x client (revision 2025-11-25)', async () => {
    const client = new Client1({ name: 'clients-test-1x', version: '1.0.0' });
    const transport = new Transport1(new URL(`${mcp.base}/mcp`), { requestInit: { headers: asUser() } });
    await client.connect(transport);
    opened.push(client);
    expect(transport.protocolVersion).to.equal('2025-11-25');
    await exercise(
      {
        listTools: async () => (await client.listTools()).tools,
        callTool: (name, args) => client.callTool({ name, arguments: args }) as Promise<Answer>,
      },
      account,
    );
  });

  describe('the MCP Inspector CLI on /demo/mcp', () => {
    let home: string;
    before(async () => (home = await mkdtemp(join(tmpdir(), 'inspector-'))));
    after(() => rm(home, { recursive: true, force: true }));

    /** runs the Inspector's CLI once (its catalog and any secrets in a home of its own); its JSON answer */
    async function inspector(...args: string[]): Promise<unknown> {
      const { stdout } = await execFileP(process.execPath, [INSPECTOR, '--cli', `${mcp.base}/demo/mcp`, ...args], {
        env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') },
        timeout: 30_000,
      });
      return JSON.parse(stdout);
    }

    it('lists the tools and calls a read and a write', async () => {
      await exercise({
        listTools: async () => ((await inspector('--method', 'tools/list')) as { tools: Listed[] }).tools,
        callTool: async (name, args) =>
          (await inspector(
            '--method',
            'tools/call',
            '--tool-name',
            name,
            ...Object.entries(args).flatMap(([k, v]) => ['--tool-arg', `${k}=${String(v)}`]),
          )) as Answer,
      });
    });
  });
});
