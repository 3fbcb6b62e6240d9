import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { pino } from 'pino';
import { credentialsByEmail } from '../../src/identity/credentials.js';
import { recordAutomationRun } from '../../src/commands/automation-run/record.js';
import { marketplaceEventStream, recordMarketplaceEvent } from '../../src/commands/event/record.js';
import { sendTestWebhook } from '../../src/commands/webhook/posts.js';
import { configureWebhook } from '../../src/commands/webhook/settings.js';
import { addDays, localDate } from '../../src/domain/shared/calendar.js';
import { newId } from '../../src/domain/shared/ids.js';
import { DELIVERY_POLICY } from '../../src/domain/webhook/retry.js';
import { admissionProjection } from '../../src/projections/admission/projection.js';
import { automationRunsProjection } from '../../src/projections/automation-runs/projection.js';
import { eventsProjection } from '../../src/projections/events/projection.js';
import { adsProjection } from '../../src/projections/observed/ads.js';
import { listingsProjection } from '../../src/projections/observed/listings.js';
import { ordersProjection } from '../../src/projections/observed/orders.js';
import { streamsProjection } from '../../src/projections/streams/projection.js';
import { webhookDeliveriesProjection } from '../../src/projections/webhook/deliveries.js';
import { webhooksProjection } from '../../src/projections/webhook/projection.js';
import { listDeliveries } from '../../src/projections/webhook/queries.js';
import { money } from '../../src/web/console/format.js';
import { RATE_LIMITS } from '../../src/web/rate-limit.js';
import { deliveryStep } from '../../src/workers/webhook/deliver.js';
import { createPoster } from '../../src/workers/webhook/post.js';
import { adsEntitiesSync } from '../../src/workers/sync/ads-entities.js';
import { adsCampaignMetricsSync } from '../../src/workers/sync/ads-metrics.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { ordersSync } from '../../src/workers/sync/orders.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import { startHarness, type Harness } from '../support/observed.js';
import { eventually } from '../support/processes.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { Browser, serveSite } from './browser.js';

// The console's pages over HTTP on a seller synced from the simulator by the real jobs: the
// Overview's figures are the tools' own, each marketplace's money in its own currency, and what a
// webhook receiver answered is shown escaped.

const SELLER = 'Atzr|demo-seller';
const ADS = 'Atzr|demo-advertiser';
const START = Date.parse('2026-05-20T20:00:00Z');
const HOSTILE = '<script>alert("pwned")</script><img src=x onerror=alert(1)>';

describe('the console pages over HTTP', function () {
  this.timeout(300_000);
  let h: Harness;
  let serving: McpServing;
  let client: Client;
  let receiver: Receiver;
  const user = newId();
  let account: string;
  const since = () => addDays(localDate(new Date(h.clock.ms), 'UTC'), -89);
  const get = async (path: string) => {
    const res = await fetch(`${serving.base}${path}`, { redirect: 'manual' });
    return { status: res.status, text: await res.text(), location: res.headers.get('location') };
  };

  before(async () => {
    h = await startHarness(
      [
        listingsProjection,
        ordersProjection,
        adsProjection,
        streamsProjection,
        webhooksProjection,
        webhookDeliveriesProjection,
        automationRunsProjection,
        admissionProjection,
        eventsProjection,
      ],
      [],
      START,
    );
    account = await h.connect('seller', user);
    await h.run(listingsSync, account, SELLER);
    await h.run(ordersSync, account, SELLER);
    for (const job of [adsEntitiesSync, adsCampaignMetricsSync({ historyDays: 90 })])
      await job.run({ ...h.deps(''), credentials: () => ({ ads_refresh_token: ADS }) }, account);
    await h.projector.whenCaughtUp();
    // a webhook whose receiver answers 400 with markup: the delivery fails for good at once
    receiver = await startReceiver((_n, response) => response.writeHead(400).end(HOSTILE));
    const now = () => new Date(h.clock.ms);
    const webhookCall = {
      store: h.store,
      db: h.db,
      by: 'test',
      actor: { kind: 'user' as const, id: user },
      signingKey: 'console-test-key',
      allowPrivateNetworks: true,
      now,
    };
    await configureWebhook(webhookCall, {
      account_id: account,
      name: 'ops',
      url: receiver.url,
      headers: {},
      kind: 'json',
    });
    const { delivery_id } = await sendTestWebhook(
      { store: h.store, notifier: { requested: async () => undefined }, logger: pino({ level: 'silent' }), now },
      { accountId: account, name: 'ops', by: 'test' },
    );
    const poster = createPoster({ allowPrivateNetworks: true });
    await deliveryStep(
      { store: h.store, poster, signingKey: 'console-test-key', policy: DELIVERY_POLICY, now },
      delivery_id,
    );
    poster.close();
    await eventually(
      async () => ((await listDeliveries(h.db, account, { limit: 1 }))[0]?.status === 'failed' ? true : undefined),
      'the failed delivery in the read model',
    );
    // `/` is the demo user's console: this seller's, here
    serving = await serveMcp(h.db, now, user);
    client = await serving.clientFor(user);
  });
  after(async () => {
    await serving?.close();
    await receiver?.close();
    await h?.close();
  });

  it("shows each marketplace's sales and ad spend in its own currency, as the tools total them, never summed", async () => {
    const sales = (await call(client, 'get_sales_summary', { since: since() })).structuredContent;
    const ads = (await call(client, 'get_ads_summary', { since: since() })).structuredContent;
    const currencies = new Set(sales.rows.map((r: { currency: string }) => r.currency));
    expect(currencies.size, 'the seller sells in several currencies').to.be.greaterThan(1);
    const { status, text } = await get('/');
    expect(status).to.equal(200);
    const section = (name: string) => text.split(`<h2>${name}</h2>`)[1]!.split('<h2>')[0]!;
    // one chart per marketplace, its total the tool's, in the marketplace's currency
    // (a marketplace with nothing in these days has its total and no chart)
    const charts = (name: string) => section(name).match(/<svg\s/g)?.length ?? 0;
    expect(charts('Sales')).to.equal(sales.rows.filter((r: { revenue: number }) => r.revenue > 0).length);
    for (const r of sales.rows) expect(section('Sales')).to.contain(`${money(r.revenue, r.currency)} over `);
    expect(charts('Ad spend')).to.equal(ads.rows.filter((r: { cost: number }) => r.cost > 0).length);
    expect(charts('Ad spend')).to.be.greaterThan(0);
    for (const r of ads.rows) expect(section('Ad spend')).to.contain(`${money(r.cost, r.currency)} over `);
    // money of two currencies added up appears nowhere
    const [a, b] = sales.rows;
    for (const currency of [a.currency, b.currency])
      expect(text).to.not.contain(money(a.revenue + b.revenue, currency));
    // each chart is an image with a title and a description, with a table of its days
    expect(text).to.match(/<svg\s[^>]*role="img"\s+aria-labelledby="sales-[^"]+-title sales-[^"]+-desc"/);
    expect(section('Webhook deliveries')).to.contain('0% delivered: 0 of 1 finished deliveries.');
  });

  it("shows a receiver's answer and a filter's echo escaped", async () => {
    const activity = await get('/activity?kind=delivery');
    expect(activity.status).to.equal(200);
    expect(activity.text).to.contain(
      '&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;',
    );
    expect(activity.text).to.not.contain('<script');
    expect(activity.text).to.not.contain('<img');
    const refused = await get(`/activity?kind=${encodeURIComponent(HOSTILE)}`);
    expect(refused.status).to.equal(400);
    expect(refused.text).to.contain('There is no kind &quot;&lt;script&gt;');
    expect(refused.text).to.not.contain('<script');
  });

  it('pages Activity one item at a time through receipts admitted together and a delivery, each once, newest first', async () => {
    const campaigns = (await call(client, 'list_ads_entities', { target_type: 'Campaign', limit: 3 })).structuredContent
      .rows;
    // one call: its receipts share their admission time, so the pages' keyset meets ties
    const queued = await call(client, 'queue_mutations', {
      mutations: campaigns.map((c: { type: string; id: string }) => ({
        target: { type: c.type, id: c.id },
        action: 'update',
        payload: { state: 'PAUSED' },
      })),
    });
    expect(queued.structuredContent.results, JSON.stringify(queued.structuredContent)).to.have.length(3);
    await h.projector.whenCaughtUp();
    const itemsOf = (text: string) => [...text.matchAll(/<li id="item-([0-9a-f-]+)">[\s\S]*?datetime="([^"]+)"/g)];
    const all = itemsOf((await get('/activity?limit=50')).text).map(([, id, at]) => ({ id: id!, at: at! }));
    expect(all).to.have.length(4);
    const order = [...all].sort((a, b) => b.at.localeCompare(a.at) || b.id.localeCompare(a.id));
    expect(all).to.deep.equal(order);
    const paged: string[] = [];
    let path: string | undefined = '/activity?limit=1';
    while (path) {
      const { text } = await get(path);
      paged.push(...itemsOf(text).map(([, id]) => id!));
      path = /<a href="([^"]+)" rel="next">/.exec(text)?.[1]?.replaceAll('&amp;', '&');
      expect(paged.length, 'a page too many').to.be.at.most(4);
    }
    expect(paged).to.deep.equal(all.map((i) => i.id));
  });

  it('links an action to the event it ran on and to its receipt: the event page shows what it caused, the receipt page its history and answers', async () => {
    const listed = (await call(client, 'list_mutations', { limit: 1 })).structuredContent.mutations;
    const receipt = listed[0] as { id: string; target_type: string; target_id: string };
    // an incoming event carrying markup, and a live run on it that admitted that receipt
    const message_id = newId();
    const received_at = new Date(h.clock.ms).toISOString();
    const payload = {
      NotificationType: 'ANY_OFFER_CHANGED',
      EventTime: received_at,
      Payload: {
        AnyOfferChangedNotification: { OfferChangeTrigger: { ASIN: HOSTILE, MarketplaceId: 'ATVPDKIKX0DER' } },
      },
    };
    await recordMarketplaceEvent(h.store, {
      account_id: account,
      message_id,
      stream_type: 'ANY_OFFER_CHANGED',
      source: 'selling',
      occurred_at: received_at,
      received_at,
      payload,
    });
    await h.projector.whenCaughtUp();
    const event = await h.db
      .withSchema('rm')
      .table('marketplace_events')
      .where({ stream: marketplaceEventStream(account, message_id) })
      .first('id');
    const automation_id = newId();
    await recordAutomationRun(
      { store: h.store, metadata: { actor: { kind: 'automation', id: 'console-test' } } },
      {
        run: {
          automation_id,
          automation_version: 4,
          account_id: account,
          stream_type: 'ANY_OFFER_CHANGED',
          event_id: event.id,
          listing_id: null,
        },
        at: new Date(h.clock.ms),
        error_message: null,
        missing_fields: [],
        store_changes: 0,
        webhook_posts: 0,
        mutations: [
          {
            status: 'applied',
            receipt_id: receipt.id,
            value: null,
            action: 'update',
            target: { type: 'Campaign', id: receipt.target_id },
          },
        ],
      },
    );
    await h.projector.whenCaughtUp();

    // Activity lists the event and the action, each linking on
    const events = await get('/activity?kind=event');
    expect(events.text).to.contain(`href="/activity/events/${event.id}"`);
    expect(events.text).to.not.contain('<script');
    const actions = await get(`/activity?kind=action&automation=${automation_id}`);
    expect(actions.text).to.contain(`href="/activity/events/${event.id}"`);
    expect(actions.text).to.contain(`href="/activity/receipts/${receipt.id}"`);

    const eventPage = await get(`/activity/events/${event.id}`);
    expect(eventPage.status, eventPage.text.slice(-1500)).to.equal(200);
    expect(eventPage.text).to.contain('ANY_OFFER_CHANGED');
    expect(eventPage.text).to.contain('&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;');
    expect(eventPage.text).to.not.contain('<script');
    // what it caused: the run's action, decided by its automation, and the receipt it admitted
    expect(eventPage.text).to.contain(`>${automation_id}</a`);
    expect(eventPage.text).to.contain(`href="/activity/receipts/${receipt.id}"`);
    expect(eventPage.text).to.contain('No webhook delivery was posted on it.');

    const receiptPage = await get(`/activity/receipts/${receipt.id}`);
    expect(receiptPage.status).to.equal(200);
    const history = (await call(client, 'get_mutation', { id: receipt.id })).structuredContent.history as Array<{
      type: string;
    }>;
    expect(history.length).to.be.greaterThan(0);
    for (const e of history) expect(receiptPage.text).to.contain(`<strong>${e.type}</strong>`);
    expect(receiptPage.text).to.contain('&quot;state&quot;: &quot;PAUSED&quot;');
    expect(receiptPage.text).to.contain(`href="/activity?kind=receipt&amp;target_type=${receipt.target_type}`);

    // what is not there, or not the reader's, is a 404 with the tool's own words
    const missing = await get(`/activity/receipts/${newId()}`);
    expect(missing.status).to.equal(404);
    expect(missing.text).to.contain('no mutation receipt');
    const noEvent = await get('/activity/events/not-an-id');
    expect(noEvent.status).to.equal(404);
    expect(noEvent.text).to.contain('no event');
  });

  it("filters Activity by account, and refuses an account that is not the reader's", async () => {
    const own = await get(`/activity?account=${account}&kind=receipt`);
    expect(own.status).to.equal(200);
    expect(own.text).to.match(/<li id="item-/);
    const stranger = newId();
    const other = await get(`/activity?account=${stranger}`);
    expect(other.status).to.equal(400);
    expect(other.text).to.contain(`no connected account has the id &#39;${stranger}&#39;`);
    const malformed = await get('/activity?account=nope');
    expect(malformed.status).to.equal(400);
    expect(malformed.text).to.contain('The account is not an account id.');
  });

  it("shows a signed-in seller their own accounts at /console, and the demo user's at /", async () => {
    const site = await serveSite(h.db, { now: () => new Date(h.clock.ms) });
    try {
      const email = `console.${Date.now()}@example.com`;
      const seller = new Browser(site.base);
      expect(
        (await seller.submit('/sign-up', '/sign-up', { email, password: 'ample meadow lantern' })).status,
      ).to.equal(303);
      const salesCharts = async (path: string) => {
        const { status, text } = await seller.get(path);
        expect(status).to.equal(200);
        return (
          text
            .split('<h2>Sales</h2>')[1]!
            .split('<h2>')[0]!
            .match(/<svg\s/g)?.length ?? 0
        );
      };
      expect(await salesCharts('/console'), 'nothing connected yet').to.equal(0);
      const userId = (await credentialsByEmail(h.db, email))!.user_id;
      const own = await h.connect('seller', userId);
      await h.run(ordersSync, own, SELLER);
      expect(await salesCharts('/console')).to.be.greaterThan(0);
      // this site's demo user has no account: `/` is theirs, whoever is signed in
      expect(await salesCharts('/')).to.equal(0);
    } finally {
      await site.close();
    }
  });

  it('answers each visitor of the demo pages within a limit of its own: past it, 429 with Retry-After', async () => {
    let refused: Response | undefined;
    for (let i = 0; i <= RATE_LIMITS.demoPages.perIp.max && !refused; i++) {
      const res = await fetch(`${serving.base}/activity/events/not-an-id`, { headers: { accept: 'text/html' } });
      if (res.status === 429) refused = res;
      else expect(res.status).to.equal(404);
    }
    expect(refused, 'no page refused').to.not.equal(undefined);
    expect(Number(refused!.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(await refused!.text()).to.contain('Too many requests from here.');
  });

  it('keeps /console behind sign-in', async () => {
    const { status, location } = await get('/console/activity?kind=delivery');
    expect(status).to.equal(303);
    expect(location).to.equal('/sign-in?return_to=%2Fconsole%2Factivity%3Fkind%3Ddelivery');
  });
});
