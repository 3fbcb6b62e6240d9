import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import type { SimListing } from '../../src/marketplace/simulator/index.js';
import { REPORT_LIMITS } from '../../src/domain/report/limits.js';
import { READ_YOUR_WRITES_MS } from '../../src/mcp/read-your-writes.js';
import { ACTIVATION_LIMIT } from '../../src/mcp/throttle.js';
import { markStopped, readCheckpoints } from '../../src/projections/checkpoints.js';
import { loadAccount } from '../../src/projections/accounts/queries.js';
import { projections } from '../../src/projections/registry.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import { startHarness, type Harness } from '../support/observed.js';
import { selectReportCatalog } from '../support/report-catalog.js';

// Read-your-writes through MCP over HTTP, with every projection of the service following the log
// as the projector role runs them: each write tool, 100 times back to back, each write made in one
// MCP session of the user and read back at once in another. Nothing here waits for the projector:
// a read that showed the state before its write counts as stale, and none may.

const SELLER = 'Atzr|demo-seller';
const ROUNDS = 100;
const TYPE = 'ANY_OFFER_CHANGED';

describe('read-your-writes: every write tool read back at once by its caller', function () {
  this.timeout(300_000);
  let h: Harness;
  let mcp: McpServing;
  let writer: Client;
  let reader: Client;
  const user = randomUUID();
  let listing: SimListing;
  let sellingConnection: string;

  /** the tool's structured answer; fails the test on a tool error */
  const ok = async (client: Client, tool: string, args: Record<string, unknown>) => {
    const r = await call(client, tool, args);
    expect(r.isError, `${tool}: ${JSON.stringify(r.structuredContent)}`).to.not.equal(true);
    return r.structuredContent;
  };
  /** runs `pair` ROUNDS times; how many of its reads were stale */
  const staleReads = async (pair: (round: number) => Promise<boolean>) => {
    let stale = 0;
    for (let round = 0; round < ROUNDS; round++) if (!(await pair(round))) stale++;
    return stale;
  };
  const handle = (round: number) => `function handle(event, context) { /* round ${round} */ }`;
  const create = async () =>
    (await ok(writer, 'create_automation', { stream_type: TYPE, code: handle(-1) })).automation_id as string;
  const listed = async (include_archived = false) =>
    (await ok(reader, 'list_automations', { stream_type: TYPE, include_archived })).automations as Array<{
      id: string;
      state: string;
    }>;

  before(async () => {
    const beside = new Set(['accounts', 'observations', 'mutations']);
    h = await startHarness(
      projections.filter((p) => !beside.has(p.name)),
      [],
      Date.parse('2026-03-10T09:00:00Z'),
    );
    const account = await h.connect('seller', user);
    await h.run(listingsSync, account, SELLER);
    sellingConnection = (await loadAccount(h.db, account))!.selling!.id;
    // a live listing whose SKU sells in one marketplace only, so no call needs marketplace_id
    const bySku = new Map<string, SimListing[]>();
    for (const p of h.simulator.seller.participations)
      for (const l of h.simulator.catalog.listingsIn(p.marketplace.id))
        bySku.set(l.sku, [...(bySku.get(l.sku) ?? []), l]);
    listing = [...bySku.values()].find((ls) => ls.length === 1 && ls[0]!.status !== 'DELETED')![0]!;
    mcp = await serveMcp(h.db, () => new Date(h.clock.ms), randomUUID());
    [writer, reader] = await Promise.all([mcp.clientFor(user), mcp.clientFor(user)]);
  });
  after(async () => {
    await mcp?.close();
    await h?.close();
  });

  it('create_automation → get_automation and list_automations', async () => {
    const stale = await staleReads(async () => {
      const id = await create();
      const got = await call(reader, 'get_automation', { automation_id: id });
      return !got.isError && (await listed()).some((a) => a.id === id);
    });
    expect(stale).to.equal(0);
  });

  it('update_automation (code) → get_automation', async () => {
    const id = await create();
    const stale = await staleReads(async (round) => {
      await ok(writer, 'update_automation', { automation_id: id, code: handle(round) });
      return (await ok(reader, 'get_automation', { automation_id: id })).code === handle(round);
    });
    expect(stale).to.equal(0);
  });

  it('update_automation (activate) → list_automations and list_streams', async () => {
    const drafts = [await create(), await create()];
    const stale = await staleReads(async (round) => {
      const id = drafts[round % 2]!;
      // the spec's 20 activations a minute, lifted for this test
      await h.db.raw(`delete from query_data.calls where kind = ?`, [ACTIVATION_LIMIT.kind]);
      await ok(writer, 'update_automation', { automation_id: id, activate: true });
      const live = (await listed()).filter((a) => a.state === 'live').map((a) => a.id);
      const streams = (await ok(reader, 'list_streams', {})).streams as Array<Record<string, unknown>>;
      const stream = streams.find((s) => s.stream_type === TYPE)!;
      return (
        live.length === 1 &&
        live[0] === id &&
        stream.live_automation_id === id &&
        ['pending', 'active'].includes(stream.status as string)
      );
    });
    expect(stale).to.equal(0);
  });

  it('duplicate_automation → get_automation', async () => {
    const source = await create();
    const stale = await staleReads(async () => {
      const copy = (await ok(writer, 'duplicate_automation', { automation_id: source })).automation_id as string;
      return !(await call(reader, 'get_automation', { automation_id: copy })).isError;
    });
    expect(stale).to.equal(0);
  });

  it('archive_automation → list_automations', async () => {
    const stale = await staleReads(async () => {
      const id = await create();
      await ok(writer, 'archive_automation', { automation_id: id });
      return !(await listed()).some((a) => a.id === id);
    });
    expect(stale).to.equal(0);
  });

  const patch = (round: number) => ({
    op: 'replace',
    path: '/attributes/item_name',
    value: [{ value: `Read back ${round}`, marketplace_id: listing.marketplaceId }],
  });
  const listedReceipts = async () =>
    (
      (await ok(reader, 'list_mutations', { target_type: 'Listing', limit: 100 })).mutations as Array<{ id: string }>
    ).map((m) => m.id);

  it('patch_listing → list_mutations', async () => {
    const stale = await staleReads(async (round) => {
      const { receipt } = await ok(writer, 'patch_listing', { sku: listing.sku, patches: [patch(round)] });
      return (await listedReceipts()).includes(receipt.id as string);
    });
    expect(stale).to.equal(0);
  });

  it('queue_mutations → list_mutations', async () => {
    const listings = (await ok(reader, 'list_listings', { sku: listing.sku })).listings as Array<{ id: string }>;
    const target = { type: 'Listing', id: listings[0]!.id };
    const stale = await staleReads(async (round) => {
      const { results } = await ok(writer, 'queue_mutations', {
        mutations: [{ target, action: 'update', payload: { productType: 'PRODUCT', patches: [patch(round)] } }],
      });
      return (await listedReceipts()).includes(results[0].receipt.id as string);
    });
    expect(stale).to.equal(0);
  });

  it('request_report → get_operation_result (as many as may be outstanding: no worker runs here)', async () => {
    const revision = await selectReportCatalog(h.db, 'rev-read-your-writes', new Date(h.clock.ms));
    let stale = 0;
    for (let round = 0; round < REPORT_LIMITS.outstanding; round++) {
      const { receipt } = await ok(writer, 'request_report', {
        idempotency_key: `ryw-${round}`,
        operation: 'sp_api:reports:2021-06-30:createReport',
        target: { type: 'SellingPartner', id: sellingConnection },
        parameters: { reportType: 'GET_MERCHANT_LISTINGS_ALL_DATA' },
        catalog_revision: revision,
      });
      const read = await call(reader, 'get_operation_result', { mutation_id: receipt.mutation_id });
      if (read.isError) stale++;
    }
    expect(stale).to.equal(0);
  });

  it('update_listing → the block flag as the next request on the listing meets it', async () => {
    const stale = await staleReads(async (round) => {
      const blocked = round % 2 === 0;
      const { updates } = await ok(writer, 'update_listing', { updates: [{ sku: listing.sku, blocked }] });
      expect(updates[0].saved).to.equal(true);
      const { receipt } = await ok(reader, 'patch_listing', { sku: listing.sku, patches: [patch(round)] });
      return receipt.status === (blocked ? 'blocked' : 'queued');
    });
    expect(stale).to.equal(0);
  });

  it("a write's answer carries the log position it reached", async () => {
    const r = await call(writer, 'create_automation', { stream_type: TYPE, code: handle(0) });
    expect(r._meta?.log_position).to.match(/^\d+\/\d+$/);
    expect((await call(reader, 'list_automations', {}))._meta?.log_position).to.equal(undefined);
  });

  it('past the bound, a read answers as the read models are and names those behind its caller’s writes', async () => {
    await h.projector.stop();
    try {
      await ok(writer, 'create_automation', { stream_type: TYPE, code: handle(-2) });
      const r = await call(reader, 'list_automations', { stream_type: TYPE });
      expect(r.isError).to.not.equal(true);
      expect(r._meta?.behind_own_writes).to.include('automations');
    } finally {
      h.projector.start();
    }
    await h.projector.whenCaughtUp();
    expect((await call(reader, 'list_automations', { stream_type: TYPE }))._meta?.behind_own_writes).to.equal(
      undefined,
    );
  });

  it('a projection a failed apply stopped is not waited for: the read answers at once and names it', async () => {
    await h.projector.stop();
    try {
      await ok(writer, 'create_automation', { stream_type: TYPE, code: handle(-3) });
      // as the projector marks one whose batch from here failed to apply
      const at = (await readCheckpoints(h.db)).get('automations')!;
      await markStopped(h.db, { name: at.name, version: at.version, from: at.position });
      const started = performance.now();
      const r = await call(reader, 'list_automations', { stream_type: TYPE });
      expect(performance.now() - started, 'not the bound').to.be.below(READ_YOUR_WRITES_MS);
      expect(r.isError).to.not.equal(true);
      expect(r._meta?.behind_own_writes).to.deep.equal(['automations']);
    } finally {
      h.projector.start();
    }
    // restarted, it claims its next batch: caught up, nothing behind
    await h.projector.whenCaughtUp();
    expect((await call(reader, 'list_automations', { stream_type: TYPE }))._meta?.behind_own_writes).to.equal(
      undefined,
    );
  });
});
