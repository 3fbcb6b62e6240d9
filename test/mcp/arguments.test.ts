import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createDb, type Knex } from '../../src/infra/db.js';
import { MAX_ARGUMENT_BYTES, MAX_ARGUMENT_DEPTH } from '../../src/mcp/argument-bounds.js';
import { answerOf, postRpc, serveMcp, toolCall, type McpServing } from '../support/mcp.js';
import { stableId } from '../../src/domain/shared/ids.js';
import { prepareReadModels, project } from '../support/seed.js';

// Arguments a client would never send, sent as raw JSON-RPC over HTTP: every one is answered as
// a tool error with a spec code naming where, never a protocol internal error.

/** `{"a":{"a":…1…}}` nested `depth` levels, written as text (the test's own JSON.stringify would recurse). */
const nestedJson = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('tool arguments out of bounds, over MCP HTTP', () => {
  let db: Knex;
  let mcp: McpServing;
  let demo: string;
  const user = randomUUID();
  const demoUser = randomUUID();
  const demoAccount = randomUUID();

  before(async () => {
    db = createDb(process.env.DATABASE_URL!);
    await prepareReadModels(db);
    // the demo seller, with a selling connection: create_automation reaches its code checks
    await project(db, [
      {
        type: 'AccountRegistered',
        data: { account_id: demoAccount, user_id: demoUser, name: 'Demo', entity_type: 'seller' },
      },
      {
        type: 'SellingConnected',
        data: { account_id: demoAccount, connection_id: stableId('selling', demoAccount), provider_id: 'SELLER-DEMO' },
      },
    ]);
    mcp = await serveMcp(db, () => new Date(), demoUser);
    demo = `${mcp.base}/demo/mcp`;
  });
  after(async () => {
    await mcp?.close();
    await db?.destroy();
  });

  const rawCall = (name: string, argumentsJson: string, url = demo, headers: Record<string, string> = {}) =>
    postRpc(
      url,
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${argumentsJson}}}`,
      headers,
    );

  for (const [label, args] of [
    ['an array', '[]'],
    ['a string', '"x"'],
    ['a number', '123'],
    ['null', 'null'],
    ['true', 'true'],
  ] as const) {
    it(`arguments that are ${label} are invalid with a plain detail, not -32603`, async () => {
      const answer = await rawCall('connection_status', args);
      expect(answer.status).to.equal(200);
      expect(answer.body!.error, JSON.stringify(answer.body)).to.equal(undefined);
      const result = answerOf(answer.body!.result!);
      expect(result.isError).to.equal(true);
      expect(result.structuredContent).to.include({ code: 'invalid', argument: '(arguments)' });
      expect(result.structuredContent.detail).to.match(/^\(arguments\): must be an object of named arguments, got /);
    });
  }

  for (const [label, args, path] of [
    ['__proto__ at the top', '{"__proto__":{"polluted":true}}', '__proto__'],
    [
      '__proto__ deep in a payload',
      '{"mutations":[{"payload":{"a":{"__proto__":{"x":1}}}}]}',
      'mutations[0].payload.a.__proto__',
    ],
    ['constructor.prototype', '{"mutations":[{"constructor":{"prototype":{"x":1}}}]}', 'mutations[0].constructor'],
  ] as const) {
    it(`a prototype key (${label}) is invalid naming where, not a bare HTTP 400`, async () => {
      const answer = await rawCall('queue_mutations', args);
      expect(answer.status).to.equal(200);
      expect(answerOf(answer.body!.result!).structuredContent).to.include({ code: 'invalid', argument: path });
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    });
  }

  it('arguments omitted are no arguments (connection_status answers)', async () => {
    const answer = await postRpc(demo, toolCall('connection_status', undefined));
    expect(answer.body!.result!.isError).to.equal(undefined);
    expect(answerOf(answer.body!.result!).structuredContent.accounts.map((a: { id: string }) => a.id)).to.deep.equal([
      demoAccount,
    ]);
  });

  it('a name that is not a string is -32602 with a plain message', async () => {
    const answer = await postRpc(demo, toolCall(42, {}));
    expect(answer.body!.error).to.deep.include({ code: -32602 });
    expect(answer.body!.error!.message).to.contain('params.name');
  });

  // 20,000: past where serializing the message again would overflow the stack
  for (const depth of [3000, 20_000])
    it(`a queue_mutations payload nested ${depth.toLocaleString('en')} levels deep is invalid naming the path where it passes the bound`, async () => {
      const mutations = `[{"target":{"type":"Listing","id":"${randomUUID()}"},"action":"update","payload":${nestedJson(depth)}}]`;
      const answer = await rawCall('queue_mutations', `{"mutations":${mutations}}`);
      const result = answerOf(answer.body!.result!);
      expect(result.structuredContent.code, JSON.stringify(result)).to.equal('invalid');
      const path = `mutations[0].payload${'.a'.repeat(MAX_ARGUMENT_DEPTH - 3)}`;
      expect(result.structuredContent.argument).to.equal(path);
      expect(result.structuredContent.detail).to.equal(
        `${path}: nested deeper than ${MAX_ARGUMENT_DEPTH} levels of objects and arrays; flatten it`,
      );
    });

  it('a patch_listing value nested 3,000 levels deep is invalid too, on /mcp as a signed-in user', async () => {
    const patches = `[{"op":"replace","path":"/attributes/item_name","value":[${nestedJson(3000)}]}]`;
    const answer = await rawCall('patch_listing', `{"sku":"S-1","patches":${patches}}`, `${mcp.base}/mcp`, {
      authorization: `Bearer user.${user}`,
    });
    expect(answerOf(answer.body!.result!).structuredContent).to.include({ code: 'invalid' });
    expect(answerOf(answer.body!.result!).structuredContent.argument).to.match(/^patches\[0\]\.value\[0\](\.a)+$/);
  });

  it('nesting at the bound is accepted as far as depth goes (the tool then judges the value)', async () => {
    // connection_status takes no arguments: an extra one at the bound is unknown_argument, not a depth error
    const answer = await rawCall('connection_status', `{"x":${nestedJson(MAX_ARGUMENT_DEPTH - 1)}}`);
    expect(answerOf(answer.body!.result!).structuredContent).to.include({ code: 'unknown_argument' });
  });

  it('arguments over the size bound are invalid naming the argument that passed it', async () => {
    const code = 'x'.repeat(MAX_ARGUMENT_BYTES);
    const answer = await rawCall('create_automation', JSON.stringify({ stream_type: 'ORDER_CHANGE', code }));
    expect(answerOf(answer.body!.result!).structuredContent).to.deep.include({
      code: 'invalid',
      argument: 'code',
      limit_bytes: MAX_ARGUMENT_BYTES,
    });
  });

  it('code under the size bound but over 100,000 bytes is still code_too_large', async () => {
    const code = `function handle(event, context) {}\n//${'x'.repeat(100_001)}`;
    const answer = await rawCall('create_automation', JSON.stringify({ stream_type: 'ORDER_CHANGE', code }));
    expect(answerOf(answer.body!.result!).structuredContent).to.include({ code: 'code_too_large' });
  });
});
