import { expect } from 'chai';
import { streamName } from '../../src/commands/shared/handler.js';
import { executeMutationCommand } from '../../src/commands/mutation/execute.js';
import { newId } from '../../src/domain/shared/ids.js';
import { getReceipt } from '../../src/projections/mutations/queries.js';
import { listingsProjection } from '../../src/projections/observed/listings.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { startHarness, type Harness } from '../support/observed.js';
import { listingId } from '../../src/domain/observation/ids.js';

// A listing the marketplace deletes takes its pending requests with it (spec 3.4): the listings
// sync's complete read reports it DELETED, its queued receipts become `blocked` (target_deleted),
// a submission already under way stays `uncertain` and records that its target is gone, and the
// requests of listings still alive are untouched.

const SELLER = 'Atzr|demo-seller';
const US = 'ATVPDKIKX0DER';

describe('listing deleted by the marketplace → its pending requests', function () {
  this.timeout(120_000);
  let h: Harness;
  let account: string;
  const ctx = () => ({ store: h.store, metadata: { actor: { kind: 'worker' as const, id: 'test' } } });
  const at = () => new Date(h.clock.ms).toISOString();

  before(async () => {
    h = await startHarness([listingsProjection], [], Date.parse('2026-03-10T09:00:00Z'));
    account = await h.connect('seller');
    await h.run(listingsSync, account, SELLER);
  });
  after(() => h.close());

  const admit = async (sku: string, n: number) => {
    const receipt_id = newId();
    const payload = {
      productType: 'PRODUCT',
      patches: [
        {
          op: 'replace',
          path: '/attributes/fulfillment_availability',
          value: [{ fulfillment_channel_code: 'DEFAULT', quantity: n }],
        },
      ],
    };
    await executeMutationCommand(ctx(), {
      type: 'AdmitMutation',
      receipt_id,
      account_id: account,
      target: { type: 'Listing', id: listingId(account, US, sku) },
      provider: { sku, marketplaceId: US },
      action: 'update',
      payload,
      idempotency: null,
      created_at: new Date(h.clock.ms + n).toISOString(),
      blocked: null,
    });
    return receipt_id;
  };
  const receipt = async (id: string) => (await getReceipt(h.db, [account], id))!.receipt;
  const eventTypes = async (id: string) => (await h.store.readStream(streamName('mutation', id))).map((e) => e.type);

  it('queued receipts become blocked (target_deleted); an uncertain one stays uncertain and notes it; other listings untouched', async () => {
    const alive = [...h.simulator.catalog.listingsIn(US)]
      .map((l) => h.simulator.selling.listings.live(l))
      .filter((l) => l.status !== 'DELETED');
    const [doomed, kept] = [alive[0]!, alive[1]!];
    const sent = await admit(doomed.sku, 1);
    const held = await admit(doomed.sku, 2);
    const other = await admit(kept.sku, 3);
    // the first one reached the marketplace without a clear answer
    await executeMutationCommand(ctx(), { type: 'StartDispatch', receipt_id: sent, started_at: at() });
    await executeMutationCommand(ctx(), {
      type: 'RecordUncertain',
      receipt_id: sent,
      cause: 'reply_lost',
      http_status: null,
      response: null,
      request_id: null,
      error: null,
      recorded_at: at(),
    });
    await h.projector.whenCaughtUp();

    // a sync before the deletion changes nothing
    await h.run(listingsSync, account, SELLER);
    expect((await receipt(held)).status).to.equal('queued');

    h.simulator.selling.listings.remove(doomed.sku, US);
    await h.run(listingsSync, account, SELLER);

    const blocked = await receipt(held);
    expect(blocked).to.include({ status: 'blocked', outcome: 'blocked', accepted: false });
    expect(blocked.error).to.include({ code: 'blocked', reason: 'target_deleted' });
    expect(await receipt(sent)).to.include({ status: 'uncertain', outcome: 'uncertain' });
    expect(await eventTypes(sent)).to.include('MutationTargetDeleted');
    expect(await receipt(other)).to.include({ status: 'queued' });

    // the next read changes nothing more: settled receipts stay as they are, the note isn't repeated
    const before = await eventTypes(sent);
    await h.run(listingsSync, account, SELLER);
    expect(await eventTypes(sent)).to.deep.equal(before);
    expect(await eventTypes(held)).to.deep.equal(['MutationAdmitted', 'MutationBlocked']);
  });
});
