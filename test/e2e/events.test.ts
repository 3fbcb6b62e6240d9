import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { endpointsAt } from '../../src/marketplace/simulator/index.js';
import { clientsFor } from '../support/marketplace.js';
import { call } from '../support/mcp.js';
import { eventually } from '../support/processes.js';
import { startConnectedService, type ConnectedService } from '../support/service.js';

// The end-to-end path through the service as `npm start` runs it: an agent creates an
// ANY_OFFER_CHANGED automation and activates it; the worker subscribes the type at the built-in
// simulator; a competitor's price change there is pushed, signed, to the ingestion endpoint;
// list_events and get_event show it naming the listing; a duplicate delivery adds nothing.

const US = 'ATVPDKIKX0DER';
type Row = Record<string, any>;

describe('marketplace events end to end (npm start)', function () {
  this.timeout(300_000);
  let e2e: ConnectedService;
  let simulator: string;
  let client: Client;
  let account: string;

  before(async () => {
    e2e = await startConnectedService('events', { STREAMS_SWEEP_MS: '1000' });
    ({ simulator, client, account } = e2e);
  });
  after(() => e2e?.stop());

  const tool = async (name: string, args: Row) => {
    const out = await call(client, name, args);
    expect(out.isError, `${name}: ${JSON.stringify(out.structuredContent)}`).to.equal(undefined);
    return out.structuredContent as Row;
  };
  const post = async (path: string, body: Row) => {
    const answer = await fetch(`${simulator}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(answer.ok, `${path}: ${await answer.clone().text()}`).to.equal(true);
  };
  const offerEvents = (asin: string) => tool('list_events', { stream_type: 'ANY_OFFER_CHANGED', asin, account });

  it('an activated ANY_OFFER_CHANGED automation subscribes the type; a competitor price change is listed once, naming the listing', async () => {
    const listing = await eventually(
      async () => (await tool('list_listings', { marketplace_id: US, limit: 50 })).listings.find((l: Row) => l.asin),
      "the account's listings",
      150_000,
    );

    const { automation_id } = await tool('create_automation', { stream_type: 'ANY_OFFER_CHANGED', account });
    const activated = await tool('update_automation', { automation_id, activate: true });
    expect(activated.state).to.equal('live');

    const stream = await eventually(
      async () => {
        const rows = (await tool('list_streams', { account })).streams as Row[];
        return rows.find((r) => r.stream_type === 'ANY_OFFER_CHANGED' && r.status === 'active');
      },
      'list_streams to show ANY_OFFER_CHANGED active',
      90_000,
    );
    // the marketplace's own record: the subscription delivers to this account's ingestion URL
    const notifications = clientsFor(endpointsAt(simulator)).selling.notifications;
    const subscription = await notifications.getSubscription('ANY_OFFER_CHANGED');
    expect(stream.provider_subscription_ids).to.include(subscription.subscriptionId);
    expect((await notifications.getDestination(subscription.destinationId)).resource.http?.url).to.match(
      new RegExp(`/ingest/${account}$`),
    );

    await post('/_sim/events', { type: 'ANY_OFFER_CHANGED', sku: listing.sku, marketplaceId: US });
    const listed = await eventually(
      async () => {
        const out = await offerEvents(listing.asin);
        return out.total > 0 ? out : undefined;
      },
      'list_events to show the competitor price change',
      60_000,
    );
    expect(listed.total).to.equal(1);
    const event = listed.events[0] as Row;
    expect(event).to.include({ stream_type: 'ANY_OFFER_CHANGED', synthetic: false, account_id: account });
    expect(event.listings.map((l: Row) => l.sku)).to.include(listing.sku);
    const full = await tool('get_event', { event_id: event.id });
    expect(full.payload.NotificationType ?? full.payload.notificationType).to.equal('ANY_OFFER_CHANGED');
    expect(JSON.stringify(full.payload)).to.include(listing.asin);

    // the simulator delivers the next message twice: the second delivery is dropped
    await post('/_sim/events/faults', { kind: 'duplicate', type: 'ANY_OFFER_CHANGED' });
    await post('/_sim/events', { type: 'ANY_OFFER_CHANGED', sku: listing.sku, marketplaceId: US });
    await eventually(
      async () => {
        const stats = (await (await fetch(`${simulator}/_sim/events/deliveries`)).json()) as Row;
        const ids = (stats.deliveries as Row[]).filter((d) => d.state === 'delivered').map((d) => d.id);
        return ids.some((id, i) => ids.indexOf(id) !== i) ? true : undefined;
      },
      'the simulator to deliver one message twice',
      60_000,
    );
    const after = await eventually(
      async () => {
        const out = await offerEvents(listing.asin);
        return out.total >= 2 ? out : undefined;
      },
      'list_events to show the second change',
      60_000,
    );
    // the projector applies in log order: give a wrongly recorded duplicate time to show up
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await offerEvents(listing.asin)).total, 'the duplicate delivery added nothing').to.equal(2);
    expect(new Set(after.events.map((e: Row) => e.id)).size).to.equal(after.events.length);
  });
});
