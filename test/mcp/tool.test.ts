import type { CallToolResult } from '@modelcontextprotocol/server';
import { expect } from 'chai';
import { z } from 'zod';
import { DomainError } from '../../src/domain/shared/errors.js';
import { createDb, type Knex } from '../../src/infra/db.js';
import { defineTool, type ToolContext } from '../../src/mcp/tool.js';
import { answerOf } from '../support/mcp.js';

/** A result's body: its structured content, or an error's JSON text. */
const body = (result: CallToolResult) => answerOf(result).structuredContent;

type Line = Record<string, unknown>;

describe('defineTool: input validation and the error layer', () => {
  let db: Knex;
  let lines: Line[];
  let ctx: ToolContext;
  const record = (level: string) => (fields: Line, msg: string) => void lines.push({ level, msg, ...fields });

  before(() => {
    db = createDb(process.env.DATABASE_URL!);
  });
  after(() => db.destroy());
  beforeEach(() => {
    lines = [];
    ctx = {
      db,
      userId: 'u',
      endpoint: 'demo',
      requestId: 'r1',
      now: () => new Date(),
      logger: {
        debug: record('debug'),
        info: record('info'),
        warn: record('warn'),
        error: record('error'),
      } as unknown as ToolContext['logger'],
    };
  });

  const echo = defineTool({
    name: 'echo',
    description: 'test tool',
    annotations: {
      title: 'Echo',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    input: { n: z.number().int(), filter: z.object({ sku: z.string() }).strict().optional() },
    output: z.object({ next: z.number().int() }),
    async handler(input, c) {
      if (input.n === 7) throw new DomainError('listing_not_found', 'no listing has that SKU', { sku: 'X' });
      if (input.n === 13) throw new Error('connection refused at 10.0.0.1');
      const { rows } = await c.db.raw('select ?::int + 1 as next, ?::text as unnamed', [input.n, 'kept back']);
      // 21: an answer its schema refuses
      return input.n === 21 ? { next: 'twenty-two' as unknown as number } : rows[0];
    },
  });

  it('lists a JSON Schema of the strict input', () => {
    expect(echo.listing.inputSchema).to.deep.include({ type: 'object', required: ['n'], additionalProperties: false });
    expect(echo.listing.inputSchema.properties).to.have.keys('n', 'filter');
    expect(echo.listing.annotations).to.deep.equal({
      title: 'Echo',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it('lists its output schema, and sends only what it names', async () => {
    expect(echo.listing.outputSchema).to.deep.include({ type: 'object', required: ['next'] });
    expect((await echo.call({ n: 1 }, ctx)).structuredContent).to.deep.equal({ next: 2 });
  });

  it('an answer its output schema refuses is unavailable, and logged as a bug', async () => {
    const result = await echo.call({ n: 21 }, ctx);
    expect(body(result)).to.include({ code: 'unavailable' });
    const logged = lines.find((l) => l.level === 'error')!;
    expect((logged.err as Error).message).to.equal('echo: the answer does not match its output schema');
  });

  it('returns the result as structuredContent and as JSON text', async () => {
    const result = await echo.call({ n: 1 }, ctx);
    expect(result.isError).to.equal(undefined);
    expect(result.structuredContent).to.deep.equal({ next: 2 });
    expect(result.content).to.deep.equal([{ type: 'text', text: '{"next":2}' }]);
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({ tool: 'echo', outcome: 'ok' });
    expect(lines[0]!.duration_ms).to.be.a('number');
  });

  it('a DomainError becomes an isError result with code, detail and extras', async () => {
    const result = await echo.call({ n: 7 }, ctx);
    const error = { code: 'listing_not_found', detail: 'no listing has that SKU', sku: 'X' };
    // no structured content: clients check it against the tool's outputSchema, an error's too
    expect(result).to.deep.equal({ isError: true, content: [{ type: 'text', text: JSON.stringify(error) }] });
    expect(lines[0]).to.include({ tool: 'echo', outcome: 'error', code: 'listing_not_found' });
  });

  it('a bad value is invalid, naming the argument path and the reason', async () => {
    const result = await echo.call({ n: 'x' }, ctx);
    expect(body(result)).to.include({ code: 'invalid', argument: 'n' });
    expect(body(result).detail).to.match(/^n: .*number/);
    const nested = await echo.call({ n: 1, filter: { sku: 5 } }, ctx);
    expect(body(nested)).to.include({ code: 'invalid', argument: 'filter.sku' });
    const missing = await echo.call({}, ctx);
    expect(body(missing)).to.include({ code: 'invalid', argument: 'n' });
  });

  it('an extra key is unknown_argument naming the key, also when nested or beside a bad value', async () => {
    const top = await echo.call({ n: 'x', foo: 1 }, ctx);
    expect(body(top)).to.include({ code: 'unknown_argument' });
    expect(body(top).arguments).to.deep.equal(['foo']);
    expect(body(top).detail).to.contain("'foo'");
    const nested = await echo.call({ n: 1, filter: { sku: 'a', asin: 'b' } }, ctx);
    expect(body(nested).arguments).to.deep.equal(['filter.asin']);
  });

  it('anything unexpected is unavailable with a generic detail; the cause goes only to the log', async () => {
    const result = await echo.call({ n: 13 }, ctx);
    expect(result.isError).to.equal(true);
    expect(body(result)).to.deep.equal({
      code: 'unavailable',
      detail: 'the service could not complete this call; retry later',
    });
    expect(JSON.stringify(result)).not.to.contain('10.0.0.1');
    const logged = lines.find((l) => l.level === 'error')!;
    expect(logged).to.include({ tool: 'echo', outcome: 'error', code: 'unavailable' });
    expect((logged.err as Error).stack).to.contain('connection refused');
  });

  it('a NUL character or a lone surrogate in any string (PostgreSQL cannot store them) is invalid, naming where, before the handler runs', async () => {
    for (const sku of ['A\u0000B', 'A\ud800B', '\udc00']) {
      const result = await echo.call({ n: 7, filter: { sku } }, ctx);
      expect(result.isError).to.equal(true);
      expect(body(result)).to.deep.include({ code: 'invalid', argument: 'filter.sku' });
      expect(String(body(result).detail)).to.match(/^filter\.sku: holds a NUL character/);
    }
    expect(
      (await echo.call({ n: 1, filter: { sku: 'tea \ud83c\udf75' } }, ctx)).structuredContent,
      'a whole pair is fine',
    ).to.deep.equal({ next: 2 });
  });
});
