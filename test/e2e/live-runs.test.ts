import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Webhook as Verifier } from 'standardwebhooks';
import { pushPrice } from '../support/automation.js';
import { call } from '../support/mcp.js';
import { listingSubmissions } from '../support/marketplace.js';
import { cli, eventually } from '../support/processes.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startConnectedService, type ConnectedService } from '../support/service.js';

// Live runs end to end, through the service as `npm start` runs it and MCP over HTTP: the
// simulator emits a competitor price change (ANY_OFFER_CHANGED); the account's live automation
// queues a price patch of the listing and posts to its webhook; the dispatch worker applies the
// patch in the simulator; list_automation_actions shows the action `applied`; get_mutation shows
// the event and the automation version that caused the receipt; the webhook receiver (a local
// server, allowed by WEBHOOK_ALLOW_PRIVATE_NETWORKS) got one delivery whose signature verifies.
//
// On a loaded 2-core machine the account's listings take a minute or more to be synced and
// projected: every wait is a condition with a generous bound, never a sleep.

const US = 'ATVPDKIKX0DER';
type Row = Record<string, any>;

/** Undercuts the lowest competing price by a cent when a competitor moved (not on our own reprice); tells the team. */
const REPRICE = `
function handle(event, context) {
  if (event.Payload.AnyOfferChangedNotification.OfferChangeTrigger.OfferChangeType !== 'External') return;
  const lowest = event.Payload.AnyOfferChangedNotification.Summary.LowestPrices?.[0]?.ListingPrice?.Amount;
  const current = context.listing.price ?? lowest;
  if (lowest == null || current == null) return;
  const price = Math.max(1, Math.round((Math.min(lowest, current) - 0.01) * 100) / 100);
  ${pushPrice('price')}
  context.webhooks.pricing.post({ sku: context.listing.sku, price });
}`;

describe('live automation runs end to end (npm start)', function () {
  this.timeout(420_000);
  let e2e: ConnectedService;
  let simulator: string;
  let client: Client;
  let account: string;
  let receiver: Receiver;

  before(async () => {
    receiver = await startReceiver();
    e2e = await startConnectedService('live', {
      STREAMS_SWEEP_MS: '1000',
      // no market ticks: the one competitor change below is the only event
      SIMULATOR_MARKET_PACE_MS: '0',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_SIGNING_KEY: 'e2e-live-signing-key',
    });
    ({ simulator, client, account } = e2e);
  });
  after(async () => {
    await e2e?.stop();
    await receiver?.close();
  });

  const tool = async (name: string, args: Row) => {
    const out = await call(client, name, args);
    expect(out.isError, `${name}: ${JSON.stringify(out.structuredContent)}`).to.equal(undefined);
    return out.structuredContent as Row;
  };

  it('a competitor price change: the live automation reprices the listing in the simulator, records it applied, and posts one signed delivery', async () => {
    // a listing whose ASIN no other listing of the marketplace shares: the event reaches it alone
    const listing = await eventually(
      async () => {
        const rows = (await tool('list_listings', { marketplace_id: US, limit: 100 })).listings as Row[];
        return rows.find((l) => l.asin && l.status === 'BUYABLE' && rows.filter((o) => o.asin === l.asin).length === 1);
      },
      "the account's listings",
      200_000,
    );
    const added = await cli(
      ['webhook', 'add', '--account', account, '--name', 'pricing', '--url', receiver.url],
      e2e.env,
    );
    const secret = /signing secret \(shown once\): (whsec_\S+)/.exec(added)![1]!;

    const { automation_id } = await tool('create_automation', {
      stream_type: 'ANY_OFFER_CHANGED',
      account,
      code: REPRICE,
    });
    expect((await tool('update_automation', { automation_id, activate: true })).state).to.equal('live');
    // created with its code and activated: code version 1 is live
    const version = 1;
    await eventually(
      async () =>
        ((await tool('list_streams', { account })).streams as Row[]).find(
          (r) => r.stream_type === 'ANY_OFFER_CHANGED' && r.status === 'active',
        ),
      'list_streams to show ANY_OFFER_CHANGED active',
      120_000,
    );

    await fetch(`${simulator}/_sim/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'ANY_OFFER_CHANGED', sku: listing.sku, marketplaceId: US }),
    }).then((r) => expect(r.status).to.equal(202));

    const action = await eventually(
      async () =>
        ((await tool('list_automation_actions', { automation_id })).actions as Row[]).find(
          (a) => a.kind === 'mutation' && a.sku === listing.sku,
        ),
      'list_automation_actions to show the price change',
      120_000,
    );
    expect(action).to.include({ status: 'applied', target_type: 'Listing', asin: listing.asin, marketplace_id: US });
    expect(action.value).to.be.a('number');

    // the dispatch worker sent it, and the simulator applied it
    const receipt = await eventually(
      async () => {
        const r = await tool('get_mutation', { id: action.receipt_id });
        return r.status === 'submitted' ? r : undefined;
      },
      'the receipt to be submitted',
      120_000,
    );
    expect(receipt).to.include({ outcome: 'accepted', accepted: true });
    const submission = (await listingSubmissions(simulator)).find((s) => s.submissionId === receipt.submission_id);
    expect(submission).to.include({ mode: 'APPLY', status: 'ACCEPTED' });
    expect(JSON.stringify(submission!.patches)).to.include(`"value_with_tax":${action.value}`);

    // which event and which automation version caused it
    const event = (
      await tool('list_events', { stream_type: 'ANY_OFFER_CHANGED', asin: listing.asin, account })
    ).events.find((e: Row) => e.id === receipt.caused_by.event_id);
    expect(event, 'the event named by caused_by').to.not.equal(undefined);
    expect(receipt.caused_by).to.deep.include({
      automation_id,
      automation_version: version,
      event_id: action.event_id,
      run_id: action.run_id,
      listing_id: listing.id,
    });

    // one signed delivery to the automation's webhook
    const delivery = await eventually(async () => receiver.received[0], 'the webhook receiver to get the post', 60_000);
    expect(new Verifier(secret).verify(delivery.body, delivery.headers as Record<string, string>)).to.deep.equal({
      sku: listing.sku,
      price: action.value,
    });
    // answered 200: delivered once, never retried
    expect(receiver.received).to.have.length(1);
  });
});
