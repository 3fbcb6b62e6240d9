import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { FEEDBACK_PER_DAY } from '../../src/domain/feedback/decide.js';
import { FEEDBACK_LENGTHS } from '../../src/domain/feedback/events.js';
import { createDb, type Knex } from '../../src/infra/db.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import { cli, runEntry } from '../support/processes.js';
import { prepareReadModels } from '../support/seed.js';

// Spec 4.10, 8: report_bug and suggest_idea over MCP as a user of /mcp: recorded through the
// feedback decider, 20 of each kind per user per UTC day, bounded fields, not on the demo; and
// what operators read with `npm run cli -- feedback list`.

describe('report_bug and suggest_idea', function () {
  this.timeout(120_000);
  let db: Knex;
  let mcp: McpServing;
  const clock = { ms: Date.parse('2031-05-06T12:00:00Z') };
  const env = () => ({ DATABASE_URL: process.env.DATABASE_URL! });

  before(async () => {
    db = createDb(process.env.DATABASE_URL!);
    await prepareReadModels(db);
    mcp = await serveMcp(db, () => new Date(clock.ms));
  });
  after(async () => {
    await mcp?.close();
    await db?.destroy();
  });

  it('are offered on /mcp and absent from the demo', async () => {
    const listed = (await (await mcp.clientFor(randomUUID())).listTools()).tools.map((t) => t.name);
    expect(listed).to.include.members(['report_bug', 'suggest_idea']);
    const demo = await mcp.demoClient();
    expect((await demo.listTools()).tools.map((t) => t.name)).to.not.include('report_bug');
    const refused = await call(demo, 'report_bug', { title: 'x' }).catch((e: Error) => e);
    expect((refused as Error).message).to.contain("'report_bug' is not available on the demo endpoint");
  });

  it(`records ${FEEDBACK_PER_DAY} of each kind a day per user, then rate_limited until midnight UTC`, async () => {
    const user = randomUUID();
    const client = await mcp.clientFor(user);
    for (let i = 0; i < FEEDBACK_PER_DAY; i++) {
      const res = await call(client, 'report_bug', {
        title: `bug ${i}`,
        what_happened: 'it failed',
        tool_name: 'query_data',
      });
      expect(res.isError, JSON.stringify(res.structuredContent)).to.not.equal(true);
      expect(res.structuredContent).to.include({ remaining_today: FEEDBACK_PER_DAY - 1 - i });
    }
    const refused = await call(client, 'report_bug', { title: 'one more' });
    expect(refused.structuredContent).to.include({ code: 'rate_limited' });
    expect(refused.structuredContent.detail).to.contain('resets at 2031-05-07T00:00:00.000Z');
    // ideas are counted apart, and so is another user
    expect((await call(client, 'suggest_idea', { title: 'an idea' })).structuredContent).to.include({
      remaining_today: FEEDBACK_PER_DAY - 1,
    });
    expect((await call(await mcp.clientFor(randomUUID()), 'report_bug', { title: 'mine' })).isError).to.not.equal(true);
    // the next UTC day starts afresh
    clock.ms = Date.parse('2031-05-07T00:00:01Z');
    expect((await call(client, 'report_bug', { title: 'next day' })).structuredContent).to.include({
      remaining_today: FEEDBACK_PER_DAY - 1,
    });
  });

  it('bounds every field and refuses what the tool does not take', async () => {
    const client = await mcp.clientFor(randomUUID());
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{}, 'invalid', 'title'],
      [{ title: '   ' }, 'invalid', 'title'],
      [{ title: 'x'.repeat(FEEDBACK_LENGTHS.title + 1) }, 'invalid', 'title'],
      [{ title: 't', detail: 'd'.repeat(FEEDBACK_LENGTHS.detail + 1) }, 'invalid', 'detail'],
      [{ title: 't', tool_name: 'n'.repeat(FEEDBACK_LENGTHS.tool_name + 1) }, 'invalid', 'tool_name'],
      [{ title: 't', payload: {} }, 'unknown_argument', 'payload'],
    ];
    for (const [args, code, named] of cases) {
      const res = await call(client, 'suggest_idea', args);
      expect(res.structuredContent, JSON.stringify(args).slice(0, 80)).to.include({ code });
      expect(res.structuredContent.detail).to.contain(named);
    }
    const longest = { title: 'x'.repeat(FEEDBACK_LENGTHS.title), expected: 'e'.repeat(FEEDBACK_LENGTHS.expected) };
    expect((await call(client, 'suggest_idea', longest)).isError).to.not.equal(true);
  });

  it('operators list them with the CLI, by kind and since a time', async () => {
    const user = randomUUID();
    const client = await mcp.clientFor(user);
    clock.ms = Date.parse('2031-06-01T08:00:00Z');
    const tag = randomUUID();
    await call(client, 'report_bug', {
      title: `export link 404 ${tag}`,
      what_happened: 'the CSV link\nanswered 404',
      expected: 'the file',
    });
    await call(client, 'suggest_idea', { title: `weekly digest ${tag}`, tool_name: 'get_sales_summary' });
    const ideas = await cli(['feedback', 'list', '--kind', 'idea', '--since', '2031-06-01'], env());
    expect(ideas)
      .to.contain(`title: weekly digest ${tag}`)
      .and.contain('tool_name: get_sales_summary')
      .and.contain(`user ${user}`);
    expect(ideas).to.not.contain(`export link 404 ${tag}`);
    const bugs = await cli(['feedback', 'list', '--kind', 'bug', '--since', '2031-06-01T07:00:00Z'], env());
    expect(bugs).to.contain(`title: export link 404 ${tag}`).and.contain('what_happened: the CSV link');
    expect(await cli(['feedback', 'list', '--since', '2031-06-02'], env())).to.equal('no feedback');
    const bad = runEntry('cli.js', ['feedback', 'list', '--kind', 'praise'], env());
    expect(await bad.exit).to.equal(2);
    expect(bad.stderr()).to.contain("--kind: 'praise' is neither bug nor idea");
  });
});
