import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import {
  recordAutomationRun,
  settleAutomationAction,
  type RunRecordInput,
} from '../../src/commands/automation-run/record.js';
import type { MutationOutcome } from '../../src/domain/automation-run/decide.js';
import { automationActionId, automationRunId } from '../../src/domain/automation-run/events.js';
import { automationsProjection } from '../../src/projections/automations/projection.js';
import { streamsProjection } from '../../src/projections/streams/projection.js';
import { useAutomationRecords } from '../support/automation-records.js';
import { quietReport } from '../support/automation-run.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import { accountWith, prepareReadModels, project } from '../support/seed.js';

// list_automation_actions (spec 4.4, 2.10, 3.3, 7) through the MCP client over HTTP, on runs
// recorded through the runner's own command: every field, every filter, paging and every refusal.

describe('list_automation_actions over MCP', function () {
  this.timeout(120_000);
  // the accounts come from project(), which runs their projector itself
  const r = useAutomationRecords([automationsProjection, streamsProjection]);
  let mcp: McpServing;
  let ada: Client;
  let bob: Client;
  let demo: Client;
  const users = { ada: randomUUID(), bob: randomUUID(), demo: randomUUID() };
  const acc = { seller: randomUUID(), shop: randomUUID(), bob: randomUUID(), demo: randomUUID() };
  const auto = { reprice: '', restock: '', bobs: '' };
  const receipts = { price: randomUUID(), shop: randomUUID(), bid: randomUUID() };
  const listing = {
    type: 'Listing',
    id: randomUUID(),
    asin: 'B0TEST0001',
    sku: 'DESK-ORG-1',
    marketplace_id: 'ATVPDKIKX0DER',
    title: 'Walnut desk organizer',
  };
  const campaign = { type: 'Campaign', id: randomUUID() };
  const at = (iso: string) => new Date(iso);
  let queuedRun: string;

  const ok = async (client: Client, args: Record<string, unknown> = {}) => {
    const res = await call(client, 'list_automation_actions', args);
    expect(res.isError, JSON.stringify(res.structuredContent)).to.not.equal(true);
    return res.structuredContent as { actions: Record<string, any>[]; total: number };
  };
  const refused = async (client: Client, args: Record<string, unknown>) => {
    const res = await call(client, 'list_automation_actions', args);
    expect(res.isError, `should be refused: ${JSON.stringify(args)}`).to.equal(true);
    return res.structuredContent as { code: string; detail: string };
  };
  const run = (
    automation_id: string,
    account_id: string,
    event_id: string,
    when: string,
    report: Partial<RunRecordInput>,
  ) =>
    recordAutomationRun(r.ctx, {
      run: {
        automation_id,
        automation_version: 2,
        event_id,
        listing_id: listing.id,
        account_id,
        stream_type: 'ANY_OFFER_CHANGED',
      },
      at: at(when),
      ...quietReport(),
      ...report,
    });
  const price = (value: number): MutationOutcome => ({
    status: 'applied',
    receipt_id: receipts.price,
    value,
    action: 'update',
    target: listing,
  });

  before(async () => {
    await prepareReadModels(r.db);
    await project(r.db, [
      ...accountWith(acc.seller, users.ada, 'Ada Seller', 'seller', ['selling', 'ads']),
      ...accountWith(acc.shop, users.ada, 'Ada Shop', 'seller', ['selling']),
      ...accountWith(acc.bob, users.bob, 'Bob', 'seller', ['selling']),
      ...accountWith(acc.demo, users.demo, 'Demo Seller', 'seller', ['selling']),
    ]);
    mcp = await serveMcp(r.db, () => new Date(), users.demo);
    [ada, bob, demo] = await Promise.all([mcp.clientFor(users.ada), mcp.clientFor(users.bob), mcp.demoClient()]);
    const create = async (client: Client, account: string) => {
      const res = await call(client, 'create_automation', { stream_type: 'ANY_OFFER_CHANGED', account });
      return res.structuredContent.automation_id as string;
    };
    auto.reprice = await create(ada, acc.seller);
    auto.restock = await create(ada, acc.shop);
    auto.bobs = await create(bob, acc.bob);
    await r.caughtUp();

    await run(auto.reprice, acc.seller, 'e1', '2026-11-20T08:00:00.000Z', {
      mutations: [
        price(15.27),
        {
          status: 'failed',
          error_message: 'payload.patches: must be a non-empty array',
          action: 'update',
          target: listing,
        },
      ],
    });
    queuedRun = (
      await run(auto.reprice, acc.seller, 'e2', '2026-11-21T08:00:00.000Z', {
        mutations: [
          {
            status: 'blocked',
            error_message: 'the listing is blocked (update_listing blocked: true)',
            action: 'update',
            target: listing,
          },
          { status: 'queued', value: 0.75, action: 'update', target: campaign },
        ],
      })
    ).run_id;
    await run(auto.reprice, acc.seller, 'e3', '2026-11-22T08:00:00.000Z', {
      missing_fields: ['payload', 'payload.offers'],
    });
    await run(auto.restock, acc.shop, 'e4', '2026-11-22T09:00:00.000Z', {
      mutations: [{ ...price(1200), receipt_id: receipts.shop }],
    });
    await run(auto.bobs, acc.bob, 'e5', '2026-11-22T10:00:00.000Z', { mutations: [price(9.99)] });
    await r.caughtUp();
  });

  after(async () => {
    await mcp?.close();
  });

  it('lists every action of the caller, newest decision first, with the fields of spec 2.10 and what links it to its run', async () => {
    const { actions, total } = await ok(ada);
    expect(total).to.equal(6);
    expect(actions.map((a) => [a.decided_at, a.kind, a.status])).to.deep.equal([
      ['2026-11-22T09:00:00.000Z', 'mutation', 'applied'],
      ['2026-11-22T08:00:00.000Z', 'warning', null],
      ['2026-11-21T08:00:00.000Z', 'mutation', 'blocked'],
      ['2026-11-21T08:00:00.000Z', 'mutation', 'queued'],
      ['2026-11-20T08:00:00.000Z', 'mutation', 'applied'],
      ['2026-11-20T08:00:00.000Z', 'mutation', 'failed'],
    ]);
    const run_id = automationRunId({
      automation_id: auto.reprice,
      automation_version: 2,
      event_id: 'e1',
      listing_id: listing.id,
    });
    const applied = actions.find((a) => a.run_id === run_id && a.status === 'applied');
    expect(applied).to.deep.equal({
      id: automationActionId(run_id, 0),
      kind: 'mutation',
      status: 'applied',
      error_message: null,
      value: 15.27,
      asin: 'B0TEST0001',
      sku: 'DESK-ORG-1',
      marketplace_id: 'ATVPDKIKX0DER',
      title: 'Walnut desk organizer',
      account_id: acc.seller,
      account_name: 'Ada Seller',
      missing_fields: null,
      automation_id: auto.reprice,
      automation_version: 2,
      run_id,
      event_id: 'e1',
      listing_id: listing.id,
      stream_type: 'ANY_OFFER_CHANGED',
      target_type: 'Listing',
      target_id: listing.id,
      action: 'update',
      receipt_id: receipts.price,
      decided_at: '2026-11-20T08:00:00.000Z',
      updated_at: '2026-11-20T08:00:00.000Z',
    });
    const warning = actions.find((a) => a.kind === 'warning')!;
    expect(warning).to.include({ status: null, error_message: null, asin: null, value: null, receipt_id: null });
    expect(warning.missing_fields).to.deep.equal(['payload', 'payload.offers']);
    const queued = actions.find((a) => a.status === 'queued')!;
    expect(queued).to.include({
      target_type: 'Campaign',
      asin: null,
      sku: null,
      title: null,
      value: 0.75,
      account_name: 'Ada Seller',
    });
    expect(actions.find((a) => a.account_id === acc.shop)).to.include({ account_name: 'Ada Shop', value: 1200 });
  });

  it('filters by automation, by status, by account, and by since (an instant, or a UTC date)', async () => {
    expect((await ok(ada, { automation_id: auto.reprice })).total).to.equal(5);
    expect(
      (await ok(ada, { automation_id: auto.restock.toUpperCase() })).actions.map((a) => a.automation_id),
    ).to.deep.equal([auto.restock]);
    for (const [status, n] of [
      ['applied', 2],
      ['failed', 1],
      ['blocked', 1],
      ['queued', 1],
    ] as const) {
      const { actions, total } = await ok(ada, { status });
      expect(total, status).to.equal(n);
      expect(actions.every((a) => a.status === status && a.kind === 'mutation')).to.equal(true);
    }
    expect((await ok(ada, { status: 'blocked' })).actions[0]!.error_message).to.equal(
      'the listing is blocked (update_listing blocked: true)',
    );
    expect((await ok(ada, { status: 'failed' })).actions[0]!.error_message).to.match(/non-empty array/);
    expect((await ok(ada, { account: acc.shop })).actions.map((a) => a.account_id)).to.deep.equal([acc.shop]);
    expect((await ok(ada, { since: '2026-11-21T08:00:00Z' })).total).to.equal(4);
    expect((await ok(ada, { since: '2026-11-21T08:00:00.001Z' })).total).to.equal(2);
    expect((await ok(ada, { since: '2026-11-22' })).total).to.equal(2);
    expect((await ok(ada, { since: '2026-11-23' })).total).to.equal(0);
    expect((await ok(ada, { automation_id: auto.reprice, status: 'applied', since: '2026-11-20' })).total).to.equal(1);
  });

  it('limit returns the newest rows; total counts every match', async () => {
    const page = await ok(ada, { limit: 2 });
    expect(page.total).to.equal(6);
    expect(page.actions.map((a) => a.decided_at)).to.deep.equal([
      '2026-11-22T09:00:00.000Z',
      '2026-11-22T08:00:00.000Z',
    ]);
    expect((await ok(ada, { limit: 100 })).actions).to.have.length(6);
  });

  it("a queued action's answer shows at once (spec 3.3)", async () => {
    await settleAutomationAction(r.ctx, {
      run_id: queuedRun,
      index: 1,
      status: 'applied',
      receipt_id: receipts.bid,
      at: at('2026-11-21T08:30:00.000Z'),
    });
    await r.caughtUp();
    const [row] = (await ok(ada, { automation_id: auto.reprice, since: '2026-11-21', status: 'applied' })).actions;
    expect(row).to.include({
      receipt_id: receipts.bid,
      updated_at: '2026-11-21T08:30:00.000Z',
      decided_at: '2026-11-21T08:00:00.000Z',
    });
    expect((await ok(ada, { status: 'queued' })).total).to.equal(0);
  });

  it("another user's actions are not listed; their automation reads as missing", async () => {
    const { actions } = await ok(bob);
    expect(actions.map((a) => [a.automation_id, a.value, a.account_name])).to.deep.equal([[auto.bobs, 9.99, 'Bob']]);
    expect(await refused(ada, { automation_id: auto.bobs })).to.deep.include({ code: 'automation_not_found' });
    expect((await ok(demo)).total).to.equal(0);
  });

  it('answers every refusal of spec 7 with a detail that names the value and why', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ automation_id: randomUUID() }, 'automation_not_found', /no automation '.*' on your accounts/],
      [{ automation_id: 'not-an-id' }, 'automation_not_found', /'not-an-id'/],
      [{ automation_id: auto.reprice, account: acc.shop }, 'automation_not_found', /on account .* \(Ada Shop\)/],
      [{ account: randomUUID() }, 'account_not_found', /no connected account has the id/],
      [{ status: 'pending' }, 'invalid', /^status: /],
      [{ status: 'APPLIED' }, 'invalid', /^status: /],
      [{ since: 'yesterday' }, 'invalid_window', /since: 'yesterday' is not an ISO 8601 date/],
      [{ since: '2026-11-21T08:00:00' }, 'invalid_window', /since: .* timestamp with an offset/],
      [{ since: '2026-02-30' }, 'invalid_window', /not a calendar date/],
      [{ limit: 0 }, 'invalid', /^limit: /],
      [{ limit: 101 }, 'invalid', /^limit: /],
      [{ limit: 2.5 }, 'invalid', /^limit: /],
      [{ cursor: 'x' }, 'unknown_argument', /cursor/],
    ];
    for (const [args, code, detail] of cases) {
      const err = await refused(ada, args);
      expect(err.code, JSON.stringify(args)).to.equal(code);
      expect(err.detail, JSON.stringify(args)).to.match(detail);
    }
  });
});
