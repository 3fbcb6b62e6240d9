import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { createDb, type Knex } from '../../src/infra/db.js';
import {
  hiddenFromVendorOnly,
  isRequired,
  notOnDemo,
  paramName,
  shownTo,
  TOOL_TABLE,
  type ToolEntry,
} from '../../src/mcp/tool-table.js';
import { TOOLS } from '../../src/mcp/tools/index.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import { accountWith, prepareReadModels, project } from '../support/seed.js';

// The table is the project's statement of spec 4; the served surface is held to it as the SDK's
// client sees it, and the table to the spec's own text where the spec sits beside the checkout.

const SPEC =
  process.env.INTERFACE_SPEC ?? new URL('../../../../shared/spec/interface-spec.md', import.meta.url).pathname;

interface SpecTool {
  kind: string;
  availability: string[];
  /** null: no parameter list found for it */
  params: string[] | null;
}

/** Spec 4.1's rows, with each tool's parameters as 4.3 to 4.10 list them (`name*` required). */
function readSpec(text: string): Map<string, SpecTool> {
  const section = (from: string, to: string) => text.slice(text.indexOf(`### ${from} `), text.indexOf(`### ${to} `));
  const tools = new Map<string, SpecTool>();
  for (const [, name, kind, availability] of section('4.1', '4.2').matchAll(/^\| (\w+)[^|]* \| (\w+) \| ([^|]+) \|$/gm))
    if (name !== 'Tool')
      tools.set(name!, {
        kind: kind!.toLowerCase(),
        availability: availability!.trim() === 'everywhere' ? [] : availability!.trim().split('; '),
        params: null,
      });
  // parenthesised notes go first (innermost out): they hold backticked values, commas and full stops
  let lists = section('4.3', '4.11');
  while (/\([^()]*\)/.test(lists)) lists = lists.replace(/\([^()]*\)/g, '');
  const listed = [
    ...lists.matchAll(/^\| `(\w+)` \| ([^|]*) \|/gm), // the tables of 4.3 to 4.6
    ...lists.matchAll(/`(\w+)`(?: parameters)?: (.*?)(?:\.(?: |$)|$)/gm), // the prose of 4.7 to 4.10
  ];
  for (const [, name, params] of listed) {
    const tool = tools.get(name!);
    if (!tool) continue;
    tool.params = [];
    for (const piece of params!.split(',').map((p) => p.trim())) {
      const param = /^`(\w+)`(\*?)$/.exec(piece);
      if (param) tool.params.push(`${param[1]}${param[2]}`);
      else expect(['none', 'no required argument'], `${name}: '${piece}'`).to.include(piece);
    }
  }
  return tools;
}

describe('the tool table (spec 4)', () => {
  it('has a row for every served tool, and marks served exactly the tools served', () => {
    const served = TOOL_TABLE.filter((e) => e.served).map((e) => e.name);
    expect(TOOLS.map((t) => t.name).sort()).to.deep.equal(served.sort());
  });

  it('says what spec 4 says: every tool, its kind, availability and parameters, required ones marked; anything more is an extension', function () {
    if (!existsSync(SPEC)) this.skip(); // the spec is kept beside the checkout, not in it
    const spec = readSpec(readFileSync(SPEC, 'utf8'));
    expect(spec.size, 'the 37 tools of spec 4.1').to.equal(37);
    for (const entry of TOOL_TABLE) {
      const stated = spec.get(entry.name);
      if (entry.extension) {
        expect(stated, `${entry.name} is marked an extension`).to.equal(undefined);
        continue;
      }
      expect(stated, `${entry.name} is in spec 4.1`).to.not.equal(undefined);
      expect({ kind: entry.kind, availability: entry.availability, params: entry.params }, entry.name).to.deep.equal(
        stated,
      );
    }
    expect([...spec.keys()].filter((name) => !TOOL_TABLE.some((e) => e.name === name))).to.deep.equal([]);
  });
});

describe('the served tools, as the MCP client lists them, against the tool table', () => {
  let db: Knex;
  let mcp: McpServing;
  const users = { seller: randomUUID(), vendor: randomUUID(), demo: randomUUID() };

  before(async () => {
    db = createDb(process.env.DATABASE_URL!);
    await prepareReadModels(db);
    await project(db, [
      ...accountWith(randomUUID(), users.seller, 'Seller', 'seller', ['selling', 'ads']),
      ...accountWith(randomUUID(), users.seller, 'Vendor of the seller', 'vendor', ['selling', 'ads']),
      ...accountWith(randomUUID(), users.vendor, 'Vendor', 'vendor', ['selling', 'ads']),
      ...accountWith(randomUUID(), users.demo, 'Demo', 'seller', ['selling', 'ads']),
    ]);
    mcp = await serveMcp(db, () => new Date(), users.demo);
  });
  after(async () => {
    await mcp?.close();
    await db?.destroy();
  });

  const callers: Array<{ who: string; endpoint: 'mcp' | 'demo'; vendorOnly: boolean; client: () => Promise<Client> }> =
    [
      { who: 'a seller on /mcp', endpoint: 'mcp', vendorOnly: false, client: () => mcp.clientFor(users.seller) },
      {
        who: 'a vendor-only user on /mcp',
        endpoint: 'mcp',
        vendorOnly: true,
        client: () => mcp.clientFor(users.vendor),
      },
      { who: '/demo/mcp', endpoint: 'demo', vendorOnly: false, client: () => mcp.demoClient() },
    ];

  for (const { who, endpoint, vendorOnly, client } of callers) {
    it(`${who}: every tool its row shows there, each with the row's parameters, required flags and kind`, async () => {
      const { tools } = await (await client()).listTools();
      const shown = TOOL_TABLE.filter((e) => e.served && shownTo(e, endpoint, vendorOnly));
      expect(tools.map((t) => t.name).sort()).to.deep.equal(shown.map((e) => e.name).sort());
      for (const tool of tools) {
        const entry = shown.find((e) => e.name === tool.name)!;
        const listed = {
          kind: tool.annotations?.readOnlyHint ? 'read' : 'write',
          params: Object.keys(tool.inputSchema.properties ?? {}).sort(),
          required: [...(tool.inputSchema.required ?? [])].sort(),
        };
        expect(listed, tool.name).to.deep.equal({
          kind: entry.kind,
          params: entry.params.map(paramName).sort(),
          required: entry.params.filter(isRequired).map(paramName).sort(),
        });
      }
    });
  }

  it('every tool states its output schema and every hint a client acts on, a read tool never destructive', async () => {
    const { tools } = await (await mcp.clientFor(users.seller)).listTools();
    for (const tool of tools) {
      expect(tool.outputSchema?.type, `${tool.name}: outputSchema`).to.equal('object');
      const { title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = tool.annotations ?? {};
      expect(title, `${tool.name}: title`).to.be.a('string').and.not.equal('');
      for (const [hint, value] of Object.entries({ readOnlyHint, destructiveHint, idempotentHint, openWorldHint }))
        expect(value, `${tool.name}: ${hint}`).to.be.a('boolean');
      if (readOnlyHint) expect(destructiveHint, `${tool.name}: a read destroys nothing`).to.equal(false);
    }
  });

  const hidden = (test: (e: ToolEntry) => boolean) => TOOL_TABLE.filter((e) => e.served && test(e));

  it('a vendor-only user calling a seller tool gets not_connected naming it', async () => {
    const vendor = await mcp.clientFor(users.vendor);
    expect(hidden(hiddenFromVendorOnly)).to.have.length(5);
    for (const { name } of hidden(hiddenFromVendorOnly)) {
      const result = await call(vendor, name, {});
      expect(result.structuredContent, name).to.include({ code: 'not_connected' });
      expect(result.structuredContent.detail).to.contain(name).and.to.contain('vendor account');
    }
  });

  it('the demo refuses a tool not on the demo as it would an unknown one', async () => {
    const demo = await mcp.demoClient();
    expect(hidden(notOnDemo)).to.not.be.empty;
    for (const { name } of hidden(notOnDemo))
      await call(demo, name, {}).then(
        () => expect.fail(`${name} answered on the demo`),
        (err: Error) => expect(err.message).to.contain(`'${name}' is not available on the demo endpoint`),
      );
  });
});
