import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { deletedListingDetail } from '../../src/commands/mutation/deleted-listing.js';
import { executeDispatchControlCommand, withheldReason } from '../../src/commands/dispatch-control/execute.js';
import type { EventStore } from '../../src/eventstore/port.js';
import { stableId } from '../../src/domain/shared/ids.js';
import type { SimListing } from '../../src/marketplace/simulator/index.js';
import { admissionProjection } from '../../src/projections/admission/projection.js';
import { listingsProjection } from '../../src/projections/observed/listings.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { startHarness, type Harness } from '../support/observed.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';

// update_listing over MCP on listings synced from the simulator: block flags per row, each row
// independent with `saved`, the spec's errors, idempotent re-blocking, and the demo recording nothing.

const SELLER = 'Atzr|demo-seller';

describe('update_listing', function () {
  this.timeout(120_000);
  let h: Harness;
  let mcp: McpServing;
  let client: Client;
  let demo: Client;
  const user = randomUUID();
  let account: string;
  let several: SimListing[];
  let single: SimListing[];
  const localId = (l: SimListing) => stableId('listing', `${account}/${l.marketplaceId}/${l.sku}`);
  const eventCount = async () => Number((await h.db('events').count<{ count: string }[]>())[0]!.count);
  /** the flag as the dispatcher sees it under its lock: the flag's own stream */
  const blocked = async (l: SimListing) =>
    (await withheldReason(h.store, { account_id: account, target: { type: 'Listing', id: localId(l) }, provider: {} }))
      ?.reason ?? null;

  before(async () => {
    h = await startHarness([listingsProjection, admissionProjection], [], Date.parse('2026-03-10T09:00:00Z'));
    account = await h.connect('seller', user);
    await h.run(listingsSync, account, SELLER);
    const bySku = new Map<string, SimListing[]>();
    for (const p of h.simulator.seller.participations) {
      for (const l of h.simulator.catalog.listingsIn(p.marketplace.id))
        if (l.status !== 'DELETED') bySku.set(l.sku, [...(bySku.get(l.sku) ?? []), l]);
    }
    several = [...bySku.values()].find((ls) => ls.length > 1)!;
    single = [...bySku.values()].filter((ls) => ls.length === 1).map((ls) => ls[0]!);
    mcp = await serveMcp(h.db, () => new Date(h.clock.ms), user);
    client = await mcp.clientFor(user);
    demo = await mcp.demoClient();
  });
  after(async () => {
    await mcp?.close();
    await h?.close();
  });

  it('each row is independent and says whether it was saved; blocking records the flag the dispatcher reads', async () => {
    const [a, b] = single as [SimListing, SimListing];
    const result = await call(client, 'update_listing', {
      updates: [
        { sku: a.sku, blocked: true },
        { sku: 'NO-SUCH-SKU', blocked: true },
        { sku: b.sku },
        { sku: several[0]!.sku, blocked: true },
        { sku: several[1]!.sku, marketplace_id: several[1]!.marketplaceId, blocked: true },
      ],
    });
    expect(result.isError, JSON.stringify(result.structuredContent)).to.equal(undefined);
    const rows = result.structuredContent.updates;
    expect(rows[0]).to.deep.equal({
      sku: a.sku,
      marketplace_id: a.marketplaceId,
      listing_id: localId(a),
      blocked: true,
      saved: true,
    });
    expect(rows[1]).to.include({ sku: 'NO-SUCH-SKU', saved: false });
    expect(rows[1].error.code).to.equal('listing_not_found');
    expect(rows[2].error).to.deep.include({ code: 'no_fields' });
    expect(rows[3].error.code).to.equal('ambiguous_sku');
    expect(rows[3].error.detail).to.contain(several[0]!.sku);
    expect(rows[4]).to.include({ listing_id: localId(several[1]!), saved: true });
    expect([await blocked(a), await blocked(several[1]!), await blocked(several[0]!)]).to.deep.equal([
      'listing_blocked',
      'listing_blocked',
      null,
    ]);
  });

  it('blocking a blocked listing records nothing; allowing it again clears the flag', async () => {
    const a = single[0]!;
    const before = await eventCount();
    expect(
      (await call(client, 'update_listing', { updates: [{ sku: a.sku, blocked: true }] })).structuredContent.updates[0]
        .saved,
    ).to.equal(true);
    expect(await eventCount()).to.equal(before);
    await call(client, 'update_listing', { updates: [{ sku: a.sku, blocked: false }] });
    expect(await eventCount()).to.equal(before + 1);
    expect(await blocked(a)).to.equal(null);
  });

  it('a request for a blocked listing is admitted blocked (recorded, never sent) at once; after allowing, new requests queue', async () => {
    const l = single[2]!;
    const patch = {
      op: 'replace',
      path: '/attributes/item_name',
      value: [{ value: 'Held back', marketplace_id: l.marketplaceId }],
    };
    // no waiting for a projection: the flag is read from its stream
    await call(client, 'update_listing', { updates: [{ sku: l.sku, blocked: true }] });
    const withheld = (await call(client, 'patch_listing', { sku: l.sku, patches: [patch] })).structuredContent;
    expect(withheld.receipt).to.include({ status: 'blocked', outcome: 'blocked', accepted: false });
    expect(withheld.receipt.error).to.include({ code: 'blocked', reason: 'listing_blocked' });
    await call(client, 'update_listing', { updates: [{ sku: l.sku, blocked: false }] });
    const queued = (await call(client, 'patch_listing', { sku: l.sku, patches: [patch] })).structuredContent;
    expect(queued.receipt).to.include({ status: 'queued' });
    await h.projector.whenCaughtUp();
    expect(
      (await call(client, 'get_mutation', { id: withheld.receipt.id })).structuredContent.status,
      'a later unblock never releases it',
    ).to.equal('blocked');
  });

  it("patch_listing names a refused patch by its own argument, patches, not the request's payload", async () => {
    const l = single[2]!;
    const refused = (
      await call(client, 'patch_listing', {
        sku: l.sku,
        patches: [{ op: 'replace', path: '/attributes/purchasable_offer', value: [{ our_price: [] }] }],
      })
    ).structuredContent;
    expect(refused).to.include({ code: 'invalid' });
    expect(refused.argument).to.match(/^patches\b/);
    expect(refused.detail).to.match(/^patches\.0\.value\.0: /);
    expect(refused.detail).to.not.contain('payload');
  });

  it('a listing the marketplace reports DELETED is refused as invalid, saying so, with or without marketplace_id; nothing is recorded', async () => {
    const all = h.simulator.seller.participations.flatMap((p) => [...h.simulator.catalog.listingsIn(p.marketplace.id)]);
    const selling = new Set(all.filter((l) => l.status !== 'DELETED').map((l) => l.sku));
    // a SKU that sells nowhere else, so the row without marketplace_id can only mean the deleted listing
    const gone = all.find((l) => l.status === 'DELETED' && !selling.has(l.sku));
    expect(gone, 'the simulator has a deleted listing').to.not.equal(undefined);
    const before = await eventCount();
    const result = await call(client, 'update_listing', {
      updates: [
        { sku: gone!.sku, marketplace_id: gone!.marketplaceId, blocked: true },
        { sku: gone!.sku, blocked: false },
      ],
    });
    expect(result.isError, JSON.stringify(result.structuredContent)).to.equal(undefined);
    const listing = { sku: gone!.sku, marketplace_id: gone!.marketplaceId };
    expect(result.structuredContent.updates).to.deep.equal([
      {
        ...listing,
        saved: false,
        error: { code: 'invalid', detail: deletedListingDetail('updates[0].sku', listing) },
      },
      {
        sku: gone!.sku,
        marketplace_id: null,
        saved: false,
        error: { code: 'invalid', detail: deletedListingDetail('updates[1].sku', listing) },
      },
    ]);
    expect(deletedListingDetail('updates[0].sku', listing)).to.match(/has status DELETED at the marketplace/);
    expect(await eventCount()).to.equal(before);
  });

  it('no_updates, too_many_updates, unknown_argument in a row, a bad marketplace id', async () => {
    expect((await call(client, 'update_listing', { updates: [] })).structuredContent.code).to.equal('no_updates');
    const many = Array.from({ length: 51 }, () => ({ sku: single[0]!.sku, blocked: true }));
    const tooMany = await call(client, 'update_listing', { updates: many });
    expect(tooMany.structuredContent).to.include({ code: 'too_many_updates' });
    expect(tooMany.structuredContent.detail).to.contain('51 rows; at most 50');
    expect(
      (await call(client, 'update_listing', { updates: [{ sku: 'X', blocked: true, price: 3 }] })).structuredContent
        .code,
    ).to.equal('unknown_argument');
    expect(
      (await call(client, 'update_listing', { updates: [{ sku: 'X', blocked: true, marketplace_id: 'NOPE' }] }))
        .structuredContent.detail,
    ).to.contain("'NOPE' is not a marketplace id");
  });

  it('conflict: a flag another writer keeps changing while the row saves, the other rows saved', async () => {
    const [raced, calm] = [single[2]!, single[3]!];
    // before each append of ours to the raced listing's flag, another writer (on the real store) blocks and allows it
    const racing = (store: EventStore): EventStore =>
      new Proxy(store, {
        get(target, prop) {
          if (prop === 'appendToStream')
            return async (...args: Parameters<EventStore['appendToStream']>) => {
              if (args[0] === `dispatch-control-Listing:${localId(raced)}`)
                for (const blocked of [true, false])
                  await executeDispatchControlCommand(
                    { store: target, metadata: { actor: { kind: 'user', id: 'other-writer' } } },
                    {
                      type: 'SetListingBlock',
                      account_id: account,
                      listing_id: localId(raced),
                      blocked,
                      at: new Date().toISOString(),
                    },
                  );
              return target.appendToStream(...args);
            };
          const value = Reflect.get(target, prop) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    const contested = await serveMcp(h.db, () => new Date(h.clock.ms), user, { wrapStore: racing });
    try {
      const rows = (
        await call(await contested.clientFor(user), 'update_listing', {
          updates: [
            { sku: raced.sku, blocked: true },
            { sku: calm.sku, blocked: true },
          ],
        })
      ).structuredContent.updates;
      expect(rows[0].error).to.deep.include({ code: 'conflict' });
      expect(rows[0].error.detail).to.equal(`updates[0]: listing ${raced.sku} changed while saving; retry`);
      expect(rows[1]).to.include({ sku: calm.sku, blocked: true, saved: true });
      expect([await blocked(raced), await blocked(calm)]).to.deep.equal([null, 'listing_blocked']);
    } finally {
      await contested.close();
    }
  });

  it('on the demo endpoint a row is validated and simulated, and nothing is recorded', async () => {
    const before = await eventCount();
    const result = await call(demo, 'update_listing', { updates: [{ sku: single[1]!.sku, blocked: true }] });
    expect(result.structuredContent).to.include({ simulated: true });
    expect(result.structuredContent.updates[0]).to.include({ saved: true, blocked: true });
    expect(await eventCount()).to.equal(before);
  });
});
