import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client as Client2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as Stdio2 } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { createDb, type Knex } from '../../src/infra/db.js';
import { answerOf } from '../support/mcp.js';
import { prepareReadModels, project } from '../support/seed.js';

describe('MCP over stdio', () => {
  const user = randomUUID();
  const account = randomUUID();
  let db: Knex;
  let client: Client;

  before(async () => {
    db = createDb(process.env.DATABASE_URL!);
    await prepareReadModels(db);
    await project(db, [
      { type: 'AccountRegistered', data: { account_id: account, user_id: user, name: 'Local', entity_type: 'vendor' } },
    ]);
    client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport(server()));
  });

  /** the stdio entry as an agent host starts it, as the user */
  const server = () => ({
    command: process.execPath,
    args: ['--no-node-snapshot', fileURLToPath(new URL('../../src/mcp/stdio.js', import.meta.url))],
    env: {
      ...Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
      MCP_USER_ID: user,
      LOG_LEVEL: 'silent',
    },
    stderr: 'inherit' as const,
  });

  after(async () => {
    await client?.close();
    await db?.destroy();
  });

  it('serves the same tools as the user named by MCP_USER_ID, and the same error codes', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).to.include('connection_status');
    const result = (await client.callTool({ name: 'connection_status', arguments: {} })) as CallToolResult;
    expect(result.structuredContent!.accounts).to.deep.equal([
      { id: account, name: 'Local', entity_type: 'vendor', selling: null, ads: null },
    ]);
    const bad = (await client.callTool({ name: 'connection_status', arguments: { foo: 1 } })) as CallToolResult;
    expect(answerOf(bad).structuredContent).to.include({ code: 'unknown_argument' });
  });

  it('writes nothing but MCP messages to stdout, even when the database is unreachable', async () => {
    // knex reports a failed connection with console.log: on stdout, a line no client can parse
    const { command, args, env } = server();
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/no_such_database_${randomUUID().slice(0, 8)}`;
    const child = spawn(command, args, { env: { ...env, DATABASE_URL: url.href }, stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'stdio-test', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'connection_status', arguments: {} } });
    // a seller tool: who may call it is read from the database too, before the tool runs
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_listings', arguments: {} } });
    send({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: {} });
    try {
      const deadline = Date.now() + 20_000;
      while (!['"id":2', '"id":3', '"id":4'].every((id) => stdout.includes(id)) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      const lines = stdout.split('\n').filter(Boolean);
      expect(lines.filter((line) => !line.startsWith('{'))).to.deep.equal([]);
      const answer = lines
        .map((line) => JSON.parse(line) as { id?: number; result?: CallToolResult })
        .find((m) => m.id === 2);
      expect(answer?.result?.isError).to.equal(true);
      // the database's own message stays in the log
      expect(stdout).to.not.contain('no_such_database');
      const seller = lines
        .map((line) => JSON.parse(line) as { id?: number; result?: CallToolResult })
        .find((m) => m.id === 3);
      expect(answerOf(seller!.result!).structuredContent).to.include({ code: 'unavailable' });
    } finally {
      child.kill();
    }
  });

  it('serves revision 2026-07-28 to the 2.x client that asks for it', async () => {
    const modern = new Client2(
      { name: 'stdio-test-2x', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await modern.connect(new Stdio2(server()));
    try {
      expect(modern.getNegotiatedProtocolVersion()).to.equal('2026-07-28');
      const result = await modern.callTool({ name: 'connection_status', arguments: {} });
      expect((result.structuredContent as { accounts: Array<{ id: string }> }).accounts.map((a) => a.id)).to.deep.equal(
        [account],
      );
    } finally {
      await modern.close();
    }
  });
});
