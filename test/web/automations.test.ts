import { expect } from 'chai';
import { subscriptionText } from '../../src/web/console/automations/list.js';
import { escapeHtml } from '../../src/web/page.js';
import { eventually } from '../support/processes.js';
import { startConsoleSeller, type ConsoleSeller } from '../support/console-seller.js';
import { Browser } from './browser.js';

// The console's Automations pages over HTTP, on the service as `npm start` runs it (PostgreSQL,
// Redis, the sandbox, the backtest workers and the simulator): the list per event type, an
// automation's highlighted code and version diff, its buttons through the tools with the CSRF
// token (and nothing changed without it), the dry-run and backtest panels with the tools' own
// answers and refusals beside the fields, and a listing blocked on the flags page.

const V1 = `function handle(event, context) {
  console.log('saw ' + event.NotificationType);
  if (event.NoSuchField) return;
}`;
const V2 = V1.replace("'saw '", "'seen '");
const HOSTILE = '<script>alert(1)</script>';

type Row = Record<string, any>;

describe('the console Automations pages over HTTP', function () {
  this.timeout(400_000);
  let s: ConsoleSeller;
  let web: Browser;
  let offers: string;
  let orders: string;
  const page = (id: string) => `/console/automations/${id}`;
  const state = async (id: string) => (await s.tool('get_automation', { automation_id: id })).state as string;

  before(async () => {
    s = await startConsoleSeller('autos-web', { SIMULATOR_MARKET_PACE_MS: '0' });
    web = s.browser;
    ({ automation_id: offers } = await s.tool('create_automation', {
      stream_type: 'ANY_OFFER_CHANGED',
      account: s.account,
      code: V1,
    }));
    await s.tool('update_automation', { automation_id: offers, code: V2, title: `Reprice ${HOSTILE}` });
    ({ automation_id: orders } = await s.tool('create_automation', {
      stream_type: 'ORDER_CHANGE',
      account: s.account,
    }));
    // a canned sample names the seller's newest listing: there must be one
    await eventually(
      async () => ((await s.tool('list_listings', { limit: 1 })).listings as Row[])[0],
      "the seller's listings",
      200_000,
    );
  });
  after(async () => {
    await s?.stop();
  });

  it('keeps /console/automations behind sign-in', async () => {
    const anonymous = await new Browser(s.own.base).get('/console/automations');
    expect(anonymous.status).to.equal(303);
    expect(anonymous.location).to.equal('/sign-in?return_to=%2Fconsole%2Fautomations');
  });

  it('lists the automations per event type with state and subscription, each linking to its page', async () => {
    const { status, text } = await web.get('/console/automations');
    expect(status).to.equal(200);
    const section = (type: string) => text.split(`<h2 id="type-${type}">${type}</h2>`)[1]!.split('</section>')[0]!;
    expect(section('ANY_OFFER_CHANGED')).to.contain(`href="${page(offers)}"`);
    expect(section('ANY_OFFER_CHANGED')).to.contain('Reprice &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(section('ANY_OFFER_CHANGED')).to.match(/class="state state-draft">draft</);
    // the subscription as the tool says it
    const listed = (await s.tool('list_automations', {})).automations as Row[];
    const subscription = listed.find((a) => a.id === offers)!.subscription;
    expect(section('ANY_OFFER_CHANGED')).to.contain(`version 2, ${subscriptionText(subscription)}`);
    expect(section('ORDER_CHANGE')).to.contain(`href="${page(orders)}"`);
    expect(section('ORDER_CHANGE')).to.not.contain(offers);
    expect(text).to.not.contain(HOSTILE);
  });

  it("shows an automation's code highlighted and its versions as a diff", async () => {
    const { status, text } = await web.get(page(offers));
    expect(status).to.equal(200);
    expect(text).to.contain('<span class="hljs-keyword">function</span>');
    expect(text).to.contain('<span class="hljs-string">&#x27;seen &#x27;</span>');
    expect(text).to.contain('<del>-  console.log(&#39;saw &#39; + event.NotificationType);</del>');
    expect(text).to.contain('<ins>+  console.log(&#39;seen &#39; + event.NotificationType);</ins>');
    // the versions asked for; one it does not have is refused
    const same = await web.get(`${page(offers)}?from=2&to=2`);
    expect(same.text).to.contain('Versions 2 and 2 have the same code.');
    const none = await web.get(`${page(offers)}?from=7`);
    expect(none.status).to.equal(400);
    expect(none.text).to.contain('Compare two of its versions: 1, 2.');
  });

  it('changes nothing on a POST without the CSRF token', async () => {
    for (const [action, fields] of [
      ['archive', { confirmed: 'yes' }],
      ['activate', {}],
      ['duplicate', {}],
      ['deactivate', { confirmed: 'yes' }],
    ] as const) {
      const forged = await web.post(`${page(orders)}/${action}`, { ...fields, _csrf: '' });
      expect(forged.status, action).to.equal(403);
    }
    expect(await state(orders)).to.equal('draft');
    expect((await s.tool('list_automations', {})).automations).to.have.length(2);
  });

  it('activates, duplicates and (once confirmed) archives through the tools, and the next page shows it', async () => {
    await web.get(page(orders));
    const activated = await web.post(`${page(orders)}/activate`, {});
    expect(activated.status).to.equal(303);
    expect(activated.location).to.equal(`${page(orders)}?done=activated`);
    const shown = await web.get(activated.location!);
    expect(shown.text).to.match(/class="state state-live">live</);
    expect(shown.text).to.contain('Activated: it is the live automation of its event type now.');

    // deactivate asks first, then makes it a draft again; activated again
    const stop = await web.post(`${page(orders)}/deactivate`, {});
    expect(stop.text).to.contain('It stops running on ORDER_CHANGE events at once and becomes a draft');
    expect(await state(orders)).to.equal('live');
    const stopped = await web.post(`${page(orders)}/deactivate`, { confirmed: 'yes' });
    expect(stopped.location).to.equal(`${page(orders)}?done=deactivated`);
    expect((await web.get(stopped.location!)).text).to.match(/class="state state-draft">draft</);
    expect(await state(orders)).to.equal('draft');
    expect((await web.post(`${page(orders)}/activate`, {})).status).to.equal(303);
    expect(await state(orders)).to.equal('live');

    const duplicated = await web.post(`${page(orders)}/duplicate`, {});
    expect(duplicated.status).to.equal(303);
    const copy = /\/console\/automations\/([0-9a-f-]{36})\?done=duplicated/.exec(duplicated.location!)![1]!;
    expect((await web.get(duplicated.location!)).text).to.match(/<h1>[^<]*\(copy\)<\/h1>/);
    expect(await state(copy)).to.equal('draft');

    // archive asks first: the confirmation changes nothing
    const asked = await web.post(`${page(orders)}/archive`, {});
    expect(asked.status).to.equal(200);
    expect(asked.text).to.contain('It is live: archiving deactivates it first');
    expect(await state(orders)).to.equal('live');
    const archived = await web.post(`${page(orders)}/archive`, { confirmed: 'yes' });
    expect(archived.status).to.equal(303);
    expect((await web.get(archived.location!)).text).to.match(/class="state state-archived">archived</);
    expect(await state(orders)).to.equal('archived');
    // an archived automation has no buttons; activating it anyway is the tool's refusal
    const refused = await web.post(`${page(orders)}/activate`, {});
    expect(refused.status).to.equal(400);
    expect(refused.text).to.match(/role="alert">invalid: automation_id: automation &#39;[0-9a-f-]+&#39; is archived/);
  });

  it('dry-runs the canned sample and shows its logs and missing field reads', async () => {
    await web.get(page(offers));
    const { status, text } = await web.post(`${page(offers)}/dry-run`, { source: 'sample' });
    expect(status, /class="field-error"[^<]*/.exec(text)?.[0]).to.equal(200);
    const result = text.split('id="dry-run-result"')[1]!;
    expect(result).to.contain('log: seen ANY_OFFER_CHANGED');
    expect(result).to.contain('<code>NoSuchField</code>, available there:');
    expect(result).to.contain('No changes.');
  });

  it('dry-runs a pasted payload, and refuses malformed JSON and an unknown event beside the field', async () => {
    await web.get(page(offers));
    // the type's fixture about one of the seller's listings
    const { fixture } = (await s.tool('describe_stream_type', { stream_type: 'ANY_OFFER_CHANGED' })).event;
    const trigger = fixture.Payload.AnyOfferChangedNotification.OfferChangeTrigger;
    const listings = (await s.tool('list_listings', { marketplace_id: trigger.MarketplaceId, limit: 100 }))
      .listings as Row[];
    // an ASIN two listings share: the run needs one of them named
    const listing = listings.find((l) => l.asin && listings.filter((o) => o.asin === l.asin).length > 1)!;
    const payload = JSON.stringify({ ...fixture, NotificationType: 'PASTED' }).replaceAll(trigger.ASIN, listing.asin);
    const several = await web.post(`${page(offers)}/dry-run`, { source: 'json', sample_event: payload });
    expect(several.status).to.equal(400);
    expect(several.text).to.match(/id="listing_id-error">listing_required: listing_id: the event reached 2 listings/);
    const pasted = await web.post(`${page(offers)}/dry-run`, {
      source: 'json',
      sample_event: payload,
      listing_id: listing.id,
    });
    expect(pasted.status, /class="field-error"[^<]*/.exec(pasted.text)?.[0]).to.equal(200);
    expect(pasted.text).to.contain('log: seen PASTED');

    const malformed = await web.post(`${page(offers)}/dry-run`, { source: 'json', sample_event: '{"a": ' });
    expect(malformed.status).to.equal(400);
    expect(malformed.text).to.match(/aria-invalid="true" aria-describedby="sample_event-error"/);
    expect(malformed.text).to.match(/<p class="field-error" id="sample_event-error">This is not JSON: /);
    // what was pasted stays in the field
    expect(malformed.text).to.contain('{&quot;a&quot;: </textarea>');

    const unknown = await web.post(`${page(offers)}/dry-run`, { source: 'event', event_id: 'no-such-event' });
    expect(unknown.status).to.equal(400);
    expect(unknown.text).to.match(/id="event_id-error">event_not_found: event_id: no event &#39;no-such-event&#39;/);

    const forged = await web.post(`${page(offers)}/dry-run`, { source: 'sample', _csrf: 'forged' });
    expect(forged.status).to.equal(403);
  });

  it('backtests a window and shows its result, and refuses a window the backtest refuses', async () => {
    await web.get(page(offers));
    const bad = await web.post(`${page(offers)}/backtest`, { since: 'last week', until: '2026-01-01' });
    expect(bad.status).to.equal(400);
    expect(bad.text).to.contain('id="since-error">Enter a day as YYYY-MM-DD.');
    const old = await web.post(`${page(offers)}/backtest`, { since: '2020-01-01', until: '2020-01-02' });
    expect(old.status).to.equal(400);
    expect(old.text).to.match(/id="since-error">invalid_window: since: 2020-01-01T00:00:00.000Z is before the events/);

    const today = new Date().toISOString().slice(0, 10);
    const started = await web.post(`${page(offers)}/backtest`, { since: today, until: today });
    expect(started.status).to.equal(303);
    expect(started.location).to.match(new RegExp(`^${page(offers)}/backtests/[0-9a-f-]{36}$`));
    const done = await eventually(
      async () => {
        const { status, headers, text } = await web.get(started.location!);
        expect(status).to.equal(200);
        if (/<strong class="status">(queued|running)</.test(text)) {
          expect(headers.get('refresh')).to.equal(`2; url=${started.location}`);
          return undefined;
        }
        return text;
      },
      'the backtest to finish',
      120_000,
    );
    expect(done).to.contain('<strong class="status">completed</strong>');
    expect(done).to.contain('<dt>Would-be changes</dt>');
  });

  it('blocks a listing on the flags page, once confirmed, with the CSRF token', async () => {
    const listing = ((await s.tool('list_listings', { limit: 1 })).listings as Row[])[0]!;
    const flags = `${page(offers)}/flags`;
    // the account's listings may still be landing: the page's count is at most the tool's just after
    const said = /The 20 newest of (\d+) listings: find the others by title, SKU or ASIN\./.exec(
      (await web.get(flags)).text.replace(/\s+/g, ' '),
    );
    expect(said, 'a long list says how to reach the rest').to.not.equal(null);
    const { total } = await s.tool('list_listings', { account: s.account });
    expect(Number(said![1])).to.be.greaterThan(20);
    expect(Number(said![1])).to.be.at.most(total as number);
    const shown = await web.get(`${flags}?keyword=${encodeURIComponent(listing.sku)}`);
    expect(shown.status).to.equal(200);
    expect(shown.text).to.contain(`Block ${listing.sku}`);
    const fields = { sku: listing.sku, marketplace_id: listing.marketplace_id, blocked: 'true' };
    expect((await web.post(`${flags}/listing`, { ...fields, confirmed: 'yes', _csrf: '' })).status).to.equal(403);
    const asked = await web.post(`${flags}/listing`, fields);
    expect(asked.text).to.contain(`Block listing ${listing.sku}?`);
    expect((await web.get(`${flags}?keyword=${encodeURIComponent(listing.sku)}`)).text).to.contain(
      `Block ${listing.sku}`,
    );
    const blocked = await web.post(`${flags}/listing`, { ...fields, confirmed: 'yes' });
    expect(blocked.status).to.equal(303);
    expect((await web.get(blocked.location!)).text).to.contain('role="alert">Saved.</p>');
    const after = await web.get(`${flags}?keyword=${encodeURIComponent(listing.sku)}`);
    expect(after.text).to.contain(`Allow ${listing.sku}`);
    // a row the tool refuses is said above the flags
    const unknown = await web.post(`${flags}/listing`, { sku: 'NO-SUCH-SKU', blocked: 'true', confirmed: 'yes' });
    expect(unknown.status).to.equal(400);
    expect(unknown.text).to.match(/role="alert">listing_not_found: /);
  });

  it("switches a campaign's Automation switch off, once confirmed", async () => {
    const campaign = await eventually(
      async () => ((await s.tool('list_campaigns', { limit: 1 })).rows as Row[])[0],
      "the seller's campaigns",
      200_000,
    );
    const flags = `${page(offers)}/flags`;
    const { rows } = await s.tool('list_campaigns', { limit: 100 });
    const last = (rows as Row[]).at(-1)!;
    const found = (await web.get(`${flags}?campaign=${encodeURIComponent(last.name)}`)).text;
    expect(found, 'any campaign is a search by name away').to.contain(`Switch off for ${escapeHtml(last.name)}`);
    if (!last.name.includes(campaign.name))
      expect(found, 'the search narrows').to.not.contain(`Switch off for ${escapeHtml(campaign.name)}`);
    const fields = { campaign_id: campaign.campaign_id, on: 'false' };
    const asked = await web.post(`${flags}/campaign`, fields);
    expect(asked.text).to.contain('Every request to it or under it will be recorded blocked');
    expect((await web.post(`${flags}/campaign`, { ...fields, confirmed: 'yes' })).status).to.equal(303);
    expect((await web.get(flags)).text).to.contain(`Switch on for ${escapeHtml(campaign.name)}`);
    const foreign = await web.post(`${flags}/campaign`, {
      campaign_id: '00000000-0000-4000-8000-000000000000',
      on: 'false',
      confirmed: 'yes',
    });
    expect(foreign.status).to.equal(400);
    expect(foreign.text).to.contain('target_not_found: campaign_id: no campaign');
  });

  it('shows the demo seller read-only at /automations', async () => {
    const { status, text } = await new Browser(s.own.base).get('/automations');
    expect(status).to.equal(200);
    expect(text).to.contain('<h1>Automations</h1>');
    expect((await new Browser(s.own.base).post(`/automations/${offers}/archive`, {})).status).to.equal(404);
  });
});
