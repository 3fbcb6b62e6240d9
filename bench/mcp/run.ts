// MCP protocol overhead benchmark: p50 and p99 of round trips through MCP over HTTP, side by side,
// on our service (/demo/mcp over a synced simulator profile) and on the SDK's own minimal server
// (createMcpFastifyApp + createMcpHandler + one registerTool) answering list_listings with the
// very answer ours gave, canned: on revision 2026-07-28 (the 2.x client pinned to it) and on
// 2025-11-25 (the 2.x client's initialize). The "ping" of each revision is the cheapest round
// trip it has: server/discover on 2026-07-28 (ping is gone there), ping on 2025-11-25. The
// ratio is ours over the bare server's; the goal for our protocol overhead is 1.2 or under. It is
// measured on list_listings answered canned by our own HTTP stack too (the same guards, limits,
// server factory, transport and error mapping, serving one tool that returns the same answer):
// ours against theirs with nothing but the protocol in between. The real list_listings is shown
// beside it, with the tool's own work (the caller's accounts and the listings query, which
// bench:reads and bench:list_listings measure).
//
//   npm run build && npm run bench:mcp [-- --calls 300] [-- --listings 2000 --order-lines 2000] [-- --keep NAME]
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import type { Client } from '@modelcontextprotocol/client';
import { createMcpFastifyApp } from '@modelcontextprotocol/fastify';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  type CallToolResult,
  createMcpHandler,
  fromJsonSchema,
  type JsonSchemaType,
  McpServer,
  type Tool,
} from '@modelcontextprotocol/server';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { DEMO_USER_ID } from '../../src/domain/shared/ids.js';
import { buildHttpServer } from '../../src/mcp/server.js';
import { profileOptions, scaleOf, withSyncedProfile } from '../profile.js';
import { fmt, printMachine, runMain } from '../support.js';
import { connect, ping, REVISIONS, timeSideBySide as timeTurns, WARM_UP, type Times } from './round-trips.js';

const { values: args } = parseArgs({
  options: {
    ...profileOptions({ listings: 2000, orderLines: 2000 }),
    calls: { type: 'string', default: '300' },
  },
});
const scale = scaleOf(args);
const calls = Number(args.calls);
const LIST_ARGS = { order_by: 'created_at' };

async function listListings(client: Client): Promise<CallToolResult> {
  const result = (await client.callTool({ name: 'list_listings', arguments: LIST_ARGS })) as CallToolResult;
  if (result.isError) throw new Error(`list_listings: ${JSON.stringify(result.structuredContent)}`);
  return result;
}

const cells = (t: Times) => t.p50.toFixed(2).padStart(10) + t.p99.toFixed(2).padStart(8);
/** ours beside the bare server's, and ours over theirs */
const row = (label: string, ours: Times, bare: Times) =>
  label.padEnd(50) +
  cells(ours) +
  cells(bare) +
  (ours.p50 / bare.p50).toFixed(2).padStart(11) +
  (ours.p99 / bare.p99).toFixed(2).padStart(7);

/** ours and the bare server's, taking turns */
const timeSideBySide = (ours: () => Promise<unknown>, bare: () => Promise<unknown>) => timeTurns(ours, bare, calls);

/** The SDK's minimal server on a free port: one tool, named and described as ours, answering `answer`. */
async function bareServer(listing: Tool, answer: CallToolResult) {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'bare', version: '1.0.0' });
    server.registerTool(
      listing.name,
      {
        description: listing.description ?? '',
        inputSchema: fromJsonSchema(listing.inputSchema as JsonSchemaType),
        ...(listing.outputSchema ? { outputSchema: fromJsonSchema(listing.outputSchema as JsonSchemaType) } : {}),
      },
      async () => answer,
    );
    return server;
  });
  const app = createMcpFastifyApp();
  const node = toNodeHandler(handler);
  app.all('/mcp', async (req, reply) => {
    reply.hijack();
    await node(req.raw, reply.raw, req.body);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp`, close: () => app.close() };
}

/** Our HTTP stack serving one tool, named and described as ours, answering `answer` (demo: no sign-in). */
async function oursCanned(db: Knex, listing: Tool, answer: CallToolResult) {
  const app = buildHttpServer({
    db,
    logger: pino({ level: 'silent' }),
    authenticate: async () => null,
    demoUserId: DEMO_USER_ID,
    now: () => new Date(),
    catalog: {
      tools: [{ name: listing.name, listing, call: async () => answer }],
      resources: [],
      resourceTemplates: [],
      prompts: [],
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/demo/mcp`, close: () => app.close() };
}

async function main(): Promise<void> {
  const adminUrl = args['admin-url']!;
  await printMachine(adminUrl);
  console.log(`profile: ${fmt(scale.listings)} listings, ${fmt(scale.orderLines)} order lines over a year`);
  await withSyncedProfile({ adminUrl, scale, keep: args.keep }, async ({ service }) => {
    const ours = `${service.url}/demo/mcp`;
    const probe = await connect(ours, '2026-07-28');
    const listing = (await probe.listTools()).tools.find((t) => t.name === 'list_listings')!;
    const answer = await listListings(probe);
    const bare = await bareServer(listing, answer);
    const canned = await oursCanned(service.db, listing, answer);
    const clients: Client[] = [probe];
    try {
      console.log(
        `${calls} sequential calls each, ours and the bare server's taking turns (after ${WARM_UP} turns unmeasured), one client per server and revision`,
      );
      console.log(
        'revision    case'.padEnd(50) +
          'ours p50'.padStart(10) +
          'p99'.padStart(8) +
          'bare p50'.padStart(10) +
          'p99'.padStart(8) +
          'ratio p50'.padStart(11) +
          'p99'.padStart(7),
      );
      for (const revision of REVISIONS) {
        const [mine, cannedMine, theirs] = await Promise.all([
          connect(ours, revision),
          connect(canned.url, revision),
          connect(bare.url, revision),
        ]);
        clients.push(mine, cannedMine, theirs);
        const cases = [
          {
            label: revision === '2026-07-28' ? 'server/discover' : 'ping',
            ours: mine,
            run: (c: Client) => ping(c, revision),
          },
          { label: 'list_listings, our answer canned', ours: cannedMine, run: listListings },
          { label: 'list_listings, real (the tool works)', ours: mine, run: listListings },
        ];
        for (const c of cases) {
          const [ours, bare] = await timeSideBySide(
            () => c.run(c.ours),
            () => c.run(theirs),
          );
          console.log(row(`${revision}  ${c.label}`, ours, bare));
        }
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await Promise.all([bare.close(), canned.close()]);
    }
  });
}

runMain(main);
