import { expect } from 'chai';
import { pino } from 'pino';
import { admitMutations } from '../../src/commands/admission/admit.js';
import { listingId } from '../../src/domain/observation/ids.js';
import { SELECTABLE_STREAM_TYPES, type ContextScope } from '../../src/domain/stream/types.js';
import type { EventType } from '../../src/marketplace/simulator/events/types.js';
import { loadAccount } from '../../src/projections/accounts/queries.js';
import { buildContexts, type BuiltContext } from '../../src/runtime/context/index.js';
import { listingFields, listingsReached, reaches } from '../../src/runtime/context/listing.js';
import { cannedSample } from '../../src/mcp/run-event.js';
import { listingKey, readListingLookups, readListingsTogether } from '../../src/runtime/context/listing-lookups.js';
import { listingsMentioned, type ListingRecord } from '../../src/projections/observed/listings-search.js';
import { CONTEXT_FIELDS } from '../../src/runtime/contracts/index.js';
import { couponsSync, promotionsSync } from '../../src/workers/sync/reports-deals.js';
import { priceUpdate, startAutomationWorld, type AutomationWorld } from '../support/automation-world.js';
import { contractViolations, pathsShown, SANDBOX_KEYS } from '../support/contract.js';

type Json = Record<string, any>;

const US = 'ATVPDKIKX0DER';
const JP = 'A1VC38T7YXB528';

// Every scope's context built from the demo seller (synced from the simulator through the real
// clients and sync jobs) and the events the simulator raises about it, held against the contract
// describe_stream_type publishes; then what the values mean: money in major units, nullability,
// which listings an event reaches.
describe('automation contexts from the demo data', function () {
  this.timeout(300_000);
  let w: AutomationWorld;
  /** contexts by event type (and a few fabricated cases), every one held to its scope's contract */
  const built = new Map<string, { scope: ContextScope; contexts: Array<BuiltContext & { context: Json }> }>();
  /** the advertised listing's contexts before the deals reports, after coupons only, after both */
  const dealsSteps: Json[] = [];
  let advertised: { sku: string; marketplace_id: string };
  let listingOf: (type: string) => Json;
  /** every Listing-scope event raised, as a live wave would take them together */
  const listingEvents: Array<{ type: string; payload: Json }> = [];

  const contexts = async (type: string, event: Json, listingId?: string) =>
    (await buildContexts({
      db: w.h.db,
      store: w.h.store,
      account: (await loadAccount(w.h.db, w.account))!,
      streamType: type,
      event,
      now: w.now(),
      ...(listingId ? { listingId } : {}),
    })) as Array<BuiltContext & { context: Json }>;
  const offerEventFor = async (sku: string, marketplaceId: string) =>
    (await w.raise('ANY_OFFER_CHANGED', { sku, marketplaceId })).payload;
  /** the read model's row of a listing: money in minor units */
  const row = (marketplace_id: string, sku: string) =>
    w.h.db
      .withSchema('rm')
      .from('listing_current as c')
      .join('listings as l', (j) =>
        j
          .on('l.account_id', 'c.account_id')
          .andOn('l.scope', 'c.scope')
          .andOn('l.page', 'c.page')
          .andOn('l.row', 'c.row'),
      )
      .where({ 'c.account_id': w.account, 'c.marketplace_id': marketplace_id, 'c.sku': sku })
      .first('l.price', 'l.floor', 'l.ceiling', 'l.currency', 'l.statuses');

  /** Queues one request on each kind of target the listing's context hands out, as an agent would. */
  async function admitOnEveryTarget(listing: Json, profiles: Json[]) {
    const account = (await loadAccount(w.h.db, w.account))!;
    const target = (e: Json) => ({ type: e.type, id: e.id });
    // every target of one campaign, the one the advertising events are raised about
    const campaign = listing.campaigns[0];
    const of = (list: string) => listing[list].find((e: Json) => e.campaignId === campaign.id);
    const mutations = [
      { ...priceUpdate(listing, listing.price), target: target(listing) },
      { target: target(campaign), action: 'update', payload: { state: 'PAUSED' } },
      { target: target(of('adGroups')), action: 'update', payload: { defaultBid: 0.5 } },
      { target: target(of('ads')), action: 'update', payload: { state: 'PAUSED' } },
      { target: target(of('targets')), action: 'update', payload: { bid: { bid: 0.6 } } },
      { target: target(of('negativeTargets')), action: 'update', payload: { state: 'PAUSED' } },
      {
        target: target(profiles[0]!),
        action: 'create_campaign',
        payload: {
          name: 'ctx test',
          targetingType: 'MANUAL',
          state: 'ENABLED',
          budget: { budget: 10, budgetType: 'DAILY' },
        },
      },
    ];
    const answer = await admitMutations(
      { db: w.h.db, store: w.h.store, now: w.now(), logger: pino({ level: 'silent' }) },
      { userId: 'context-test', accounts: [account], account, mutations, input: mutations },
    );
    expect(answer.results.map((r) => ('receipt' in r ? r.receipt.status : r.error))).to.deep.equal(
      mutations.map(() => 'queued'),
    );
    await w.h.projector.whenCaughtUp();
  }

  before(async () => {
    w = await startAutomationWorld({ deals: false });
    advertised = (await w.advertised())[0]!;
    const offer = await offerEventFor(advertised.sku, advertised.marketplace_id);
    dealsSteps.push((await contexts('ANY_OFFER_CHANGED', offer))[0]!.context);
    await w.sync(couponsSync);
    dealsSteps.push((await contexts('ANY_OFFER_CHANGED', offer))[0]!.context);
    await w.sync(promotionsSync);
    dealsSteps.push((await contexts('ANY_OFFER_CHANGED', offer))[0]!.context);
    const { listing } = dealsSteps[2]!;
    await admitOnEveryTarget(listing, dealsSteps[2]!.advertisingProfiles);
    // the advertising events are about that campaign, its hours recorded first
    const campaign = {
      profileId: String(listing.campaigns[0].providerProfileId),
      campaignId: listing.campaigns[0].data.campaignId,
    };
    await w.raise('SP_TRAFFIC', campaign);
    await w.raise('SP_CONVERSION', campaign);

    for (const { code, scope, source } of SELECTABLE_STREAM_TYPES) {
      if (scope === 'Report') continue;
      const raised =
        code === 'ANY_OFFER_CHANGED'
          ? await w.raise(code, { sku: advertised.sku, marketplaceId: advertised.marketplace_id })
          : await w.raise(code as EventType, source === 'ads' ? campaign : {});
      built.set(code, { scope: scope!, contexts: await contexts(code, raised.payload) });
      if (scope === 'Listing') listingEvents.push({ type: code, payload: raised.payload });
      // what the simulator never sends: a portfolio's budget usage, a campaign not synced yet
      if (code === 'BUDGET_USAGE') {
        const portfolio = { ...raised.payload, budgetScopeType: 'PORTFOLIO', budgetScopeId: '283940192837465' };
        built.set('BUDGET_USAGE/portfolio', { scope: scope!, contexts: await contexts(code, portfolio) });
      }
      if (code === 'SP_TRAFFIC') {
        const unsynced = { ...raised.payload, campaign_id: '999999999999999', idempotency_id: 'x-1' };
        built.set('SP_TRAFFIC/unsynced', { scope: scope!, contexts: await contexts(code, unsynced) });
      }
    }
    listingOf = (type) => built.get(type)!.contexts[0]!.context.listing;
  });
  after(() => w?.close());

  it('builds at least one context for each type of every scope but Report (test/e2e/reports.test.ts builds those)', async () => {
    for (const [type, { contexts: c }] of built) expect(c.length, type).to.be.greaterThan(0);
    // a completion naming no report receipt of the account reaches nothing
    expect(
      await contexts('SELLING_REPORT_COMPLETED', { reportReceiptId: '5b0c9a57-8f61-4d1e-9f3b-1c2d3e4f5a6b' }),
    ).to.deep.equal([]);
  });

  it('holds every context to its contract: each field present with its type and nullability, nothing else', () => {
    for (const [type, { scope, contexts: c }] of built)
      for (const { context } of c) expect(contractViolations(CONTEXT_FIELDS[scope], context), type).to.deep.equal([]);
  });

  it('the contract check itself catches a missing key, a wrong type, a null where none may be, an extra key', () => {
    const { context } = built.get('ANY_OFFER_CHANGED')!.contexts[0]!;
    const fields = CONTEXT_FIELDS.Listing;
    const altered = (change: (c: Json) => void) => {
      const copy = structuredClone(context);
      change(copy);
      return contractViolations(fields, copy);
    };
    expect(altered((c) => delete c.listing.sku)).to.deep.equal(['listing.sku: missing']);
    expect(altered((c) => (c.listing.price = '87.99'))).to.deep.equal(['listing.price: string, not number']);
    expect(altered((c) => (c.listing.price = null))).to.deep.equal([]);
    expect(altered((c) => (c.listing.asin = null))).to.deep.equal(['listing.asin: null, but not nullable']);
    expect(altered((c) => (c.listing.campaigns[0].extra = 1))).to.deep.equal([
      'listing.campaigns[].extra: not in the contract',
    ]);
    expect(altered((c) => (c.listing.data.anything = 1))).to.deep.equal([]);
    expect(altered((c) => (c.store = {}))).to.deep.equal(['store: the sandbox adds it']);
  });

  it('shows every contract field somewhere in the demo contexts, so the check above reached each', () => {
    const shown = new Map<ContextScope, Set<string>>();
    for (const { scope, contexts: c } of built.values())
      for (const { context } of c)
        for (const p of pathsShown(CONTEXT_FIELDS[scope], context))
          shown.set(scope, (shown.get(scope) ?? new Set()).add(p));
    const unseen = Object.fromEntries(
      [...shown].map(([scope, paths]) => [
        scope,
        CONTEXT_FIELDS[scope]
          .filter((f) => !SANDBOX_KEYS.includes(f.path.split(/[.[]/)[0]!) && !paths.has(f.path))
          .map((f) => f.path),
      ]),
    );
    // portfolios are not synced: what the firing event says is all a portfolio context has
    expect(unseen, JSON.stringify(unseen)).to.deep.equal({
      Listing: [],
      SellingPartner: [],
      CampaignOrPortfolio: [
        'portfolio.name',
        'portfolio.state',
        'portfolio.startDate',
        'portfolio.endDate',
        'portfolio.renewalPolicy',
      ],
      HourlyMetrics: [],
      EntityChange: [],
    });
  });

  it('states money in major units: the read model minor units over the currency exponent, whole yen in Japan', async () => {
    const listing = listingOf('ANY_OFFER_CHANGED');
    const minor = await row(advertised.marketplace_id, advertised.sku);
    const digits = minor.currency === 'JPY' ? 0 : 2;
    expect(listing.price).to.equal(Number(minor.price) / 10 ** digits);
    expect(Number.isInteger(listing.price * 10 ** digits)).to.equal(true);
    // the marketplace's own figure (the simulator's live listing) says the same
    const sim = w.h.simulator.selling.listings.live(
      [...w.h.simulator.catalog.listingsIn(advertised.marketplace_id)].find((l) => l.sku === advertised.sku)!,
    );
    expect(listing.price).to.equal(sim.price / 10 ** digits);
    const jp = await w.h.db
      .withSchema('rm')
      .table('listing_current')
      .where({ account_id: w.account, marketplace_id: JP })
      .orderBy('sku')
      .first('sku');
    const [yen] = await contexts('ANY_OFFER_CHANGED', await offerEventFor(jp.sku, JP));
    const yenRow = await row(JP, jp.sku);
    expect(yen!.context.listing.price).to.equal(Number(yenRow.price));
    expect(yen!.context.listing.currencyCode).to.equal('JPY');
  });

  it('states 30-day ads figures in major units: the sum of the synced days over the exponent', async () => {
    const campaign = listingOf('ANY_OFFER_CHANGED').campaigns[0];
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London' }).format(w.now());
    const sums = await w.h.db.raw(
      `select coalesce(sum(m.cost), 0) as cost, coalesce(sum(m.attributed_sales_7d), 0) as sales
         from rm.ads_campaign_daily m join rm.observed_scopes s on s.account_id = m.account_id and s.dataset = 'sp_campaign_daily' and s.scope = m.scope and m.page < s.pages
        where m.campaign_id = ? and m.report_date between (?::date - 29) and ?::date`,
      [campaign.id, today, today],
    );
    expect(campaign.metrics30.cost).to.be.greaterThan(0);
    expect(campaign.metrics30.cost).to.equal(Number(sums.rows[0].cost) / 100);
    expect(campaign.metrics30.sales).to.equal(Number(sums.rows[0].sales) / 100);
    // the budget as the ads API's decimal string, in major units too
    expect(campaign.dailyBudget).to.be.a('string');
    expect(parseFloat(campaign.dailyBudget)).to.equal(campaign.data.budget.budget);
  });

  it('deals: null until both reports were read, then the active ones covering the ASIN (or an empty list)', () => {
    const [before, couponsOnly, both] = dealsSteps.map((c) => c.listing);
    expect([before.deals, before.dealsReportedAt]).to.deep.equal([null, null]);
    expect([couponsOnly.deals, couponsOnly.dealsReportedAt]).to.deep.equal([null, null]);
    expect(both.deals).to.be.an('array');
    expect(both.dealsReportedAt).to.be.a('string');
    for (const deal of both.deals) {
      expect(deal.kind).to.be.oneOf(['coupon', 'promotion']);
      expect(Date.parse(deal.startsAt)).to.be.at.most(w.now().getTime());
      expect(Date.parse(deal.endsAt)).to.be.greaterThan(w.now().getTime());
      const asins = (deal.asins ?? deal.includedProducts).map((a: Json) => a.asin);
      expect(asins).to.deep.equal([both.asin]);
    }
    // some listing's ASIN has none active: an empty list, not null
    const all = [...built.values()].flatMap((b) => b.contexts.map((c) => c.context.listing)).filter(Boolean);
    expect(all.some((l) => Array.isArray(l.deals) && l.deals.length === 0)).to.equal(true);
  });

  it('statuses: null until reported (never empty), and buyable/discoverable/deleted null with it', () => {
    const record = {
      account_id: w.account,
      sku: 'S-1',
      marketplace_id: US,
      asin: 'B000000001',
      title: 't',
      product_type: null,
      status: null,
      currency: 'USD',
      price: '1527',
      b2b_price: null,
      floor: null,
      ceiling: '2000',
      fulfillment_channel: 'MFN',
      condition_type: null,
      condition: null,
      handling_time: null,
      restock_date: null,
      shipping_group: null,
      created_at: null,
      statuses: null,
      quantity: 3,
      data: {},
      fba_inventory: null,
    } satisfies ListingRecord;
    const extras = {
      blocked: false,
      b2bSales30d: 0,
      ownShipping: null,
      notifications: {},
      deals: { deals: null, dealsReportedAt: null },
    };
    for (const statuses of [null, []]) {
      const l = listingFields(w.account, { ...record, statuses }, extras);
      expect([l.statuses, l.buyable, l.discoverable, l.deleted]).to.deep.equal([null, null, null, null]);
    }
    const known = listingFields(w.account, { ...record, statuses: ['DISCOVERABLE'] }, extras);
    expect([known.buyable, known.discoverable, known.deleted]).to.deep.equal([false, true, false]);
    expect([known.price, known.floor, known.ceiling, known.shippingCost, known.fulfillmentChannel]).to.deep.equal([
      15.27,
      null,
      20,
      null,
      'Merchant',
    ]);
    const yen = listingFields(w.account, { ...record, currency: 'JPY', marketplace_id: JP, price: '1527' }, extras);
    expect(yen.price).to.equal(1527);
  });

  it('a region-wide FBA event reaches the SKU in each marketplace it is listed in, each with its own bounds', async () => {
    const multi = await w.h.db
      .withSchema('rm')
      .table('listing_current')
      .where({ account_id: w.account })
      .groupBy('sku')
      .havingRaw('count(*) > 1')
      .select('sku', w.h.db.raw('array_agg(marketplace_id order by marketplace_id) as marketplaces'))
      .first();
    expect(multi, 'the demo lists a SKU in several marketplaces').to.not.equal(undefined);
    const event = {
      NotificationType: 'FBA_INVENTORY_AVAILABILITY_CHANGES',
      Payload: {
        SellerId: 'x',
        FulfillmentNetworkSku: 'X0',
        Sku: multi.sku,
        ASIN: 'B0NOTUSED0',
        FulfillmentInventoryByMarketplace: multi.marketplaces.map((m: string) => ({ MarketplaceId: m })),
      },
    };
    const reached = await contexts('FBA_INVENTORY_AVAILABILITY_CHANGES', event);
    expect(reached.map((c) => c.context.listing.marketplace.id)).to.deep.equal(multi.marketplaces);
    for (const { context } of reached) {
      const r = await row(context.listing.marketplace.id, multi.sku);
      const digits = r.currency === 'JPY' ? 0 : 2;
      const major = (v: string | null) => (v === null ? null : Number(v) / 10 ** digits);
      expect([context.listing.floor, context.listing.ceiling]).to.deep.equal([major(r.floor), major(r.ceiling)]);
    }
    const one = await contexts('FBA_INVENTORY_AVAILABILITY_CHANGES', event, reached[1]!.listing?.id);
    expect(one.map((c) => c.listing?.id)).to.deep.equal([reached[1]!.listing?.id]);
    const nobody = await contexts('FBA_INVENTORY_AVAILABILITY_CHANGES', {
      ...event,
      Payload: { ...event.Payload, Sku: 'NO-SUCH-SKU' },
    });
    expect(nobody).to.deep.equal([]);
  });

  it('finds the listings a message names: by SKU, else by ASIN, in its marketplace or in every one, each once', async () => {
    const current: Array<{ marketplace_id: string; sku: string; asin: string | null }> = await w.h.db
      .withSchema('rm')
      .table('listing_current')
      .where({ account_id: w.account })
      .select('marketplace_id', 'sku', 'asin');
    const shared = current.find(
      (a) => a.asin !== null && current.some((b) => b.asin === a.asin && b.marketplace_id !== a.marketplace_id),
    );
    const multi = current.find((a) => current.some((b) => b.sku === a.sku && b.marketplace_id !== a.marketplace_id));
    expect(shared?.asin, 'the demo lists an ASIN in several marketplaces').to.be.a('string');
    expect(multi, 'the demo lists a SKU in several marketplaces').to.not.equal(undefined);
    const found = async (mentions: Array<{ sku?: string; asin?: string | null; marketplace_id?: string }>) =>
      (
        await listingsMentioned(
          w.h.db,
          w.account,
          mentions.map((m) => ({ sku: m.sku ?? null, asin: m.asin ?? null, marketplace_id: m.marketplace_id ?? null })),
        )
      ).map((r) => `${r.marketplace_id}/${r.sku}`);
    const expected = (keep: (c: (typeof current)[number]) => boolean) =>
      current
        .filter(keep)
        .map((c) => `${c.marketplace_id}/${c.sku}`)
        .sort();
    expect(await found([{ sku: multi!.sku, marketplace_id: multi!.marketplace_id }])).to.deep.equal([
      `${multi!.marketplace_id}/${multi!.sku}`,
    ]);
    expect(await found([{ sku: multi!.sku }])).to.deep.equal(expected((c) => c.sku === multi!.sku));
    expect(await found([{ asin: shared!.asin }])).to.deep.equal(expected((c) => c.asin === shared!.asin));
    expect(await found([{ asin: shared!.asin, marketplace_id: shared!.marketplace_id }])).to.deep.equal(
      expected((c) => c.asin === shared!.asin && c.marketplace_id === shared!.marketplace_id),
    );
    // a SKU decides over the ASIN beside it; two mentions of one listing give it once
    expect(
      await found([
        { sku: multi!.sku, asin: shared!.asin, marketplace_id: multi!.marketplace_id },
        { sku: multi!.sku, marketplace_id: multi!.marketplace_id },
      ]),
    ).to.deep.equal([`${multi!.marketplace_id}/${multi!.sku}`]);
    expect(await found([{ sku: 'NO-SUCH-SKU' }, { asin: 'B0NOTLISTED' }])).to.deep.equal([]);
  });

  it('a canned sample reaches its own listing as listingsReached finds it, from the row it was made from (no second read)', async () => {
    const account = (await loadAccount(w.h.db, w.account))!;
    const current: Array<{ marketplace_id: string; sku: string; asin: string | null }> = await w.h.db
      .withSchema('rm')
      .table('listing_current')
      .where({ account_id: w.account })
      .select('marketplace_id', 'sku', 'asin');
    const key = (r: { marketplace_id: string; sku: string }) => `${r.marketplace_id}/${r.sku}`;
    for (const type of SELECTABLE_STREAM_TYPES.filter((t) => t.scope === 'Listing')) {
      const sample = (await cannedSample(w.h.db, account, type, undefined))!;
      const run = { db: w.h.db, account, streamType: type.code, event: sample.payload };
      const read = await listingsReached(run);
      const own = read.filter((r) => listingId(w.account, r.marketplace_id, r.sku) === sample.listingId);
      expect(own, `${type.code}: the sample reaches its listing`).to.have.length(1);
      expect(sample.reached, type.code).to.deep.equal(own);
      // the decider over every listing of the account, reached or not, agrees with the read
      expect(
        current
          .filter((r) => reaches(run, r))
          .map(key)
          .sort(),
        type.code,
      ).to.deep.equal(read.map(key).sort());
    }
  });

  it("a live wave reads its listings' own lookups in one statement: each context as read alone", async () => {
    const account = (await loadAccount(w.h.db, w.account))!;
    const now = w.now();
    // two more listings than the events name, one not advertised, so lookups of different shapes share the read
    const other = await w.h.db
      .withSchema('rm')
      .from('listing_current')
      .where({ account_id: w.account, marketplace_id: JP })
      .first('sku');
    const wave = [...listingEvents, { type: 'ANY_OFFER_CHANGED', payload: await offerEventFor(other.sku, JP) }];
    const request = (e: (typeof wave)[number]) => ({
      db: w.h.db,
      store: w.h.store,
      account,
      streamType: e.type,
      event: e.payload,
      now,
    });
    const reached = await Promise.all(wave.map((e) => listingsReached(request(e))));
    expect(new Set(reached.flat().map(listingKey)).size).to.be.greaterThan(2);
    const together = readListingsTogether(w.h.db, account, now, reached.flat());
    const shared = await together;
    for (const [i, e] of wave.entries()) {
      const alone = await buildContexts(request(e));
      const inWave = await buildContexts({ ...request(e), reached: Promise.resolve(reached[i]!), together });
      expect(inWave, e.type).to.deep.equal(alone);
      // and the wave's read answered each: its own lookups, not another listing's
      for (const r of reached[i]!)
        expect(shared.get(listingKey(r)), e.type).to.deep.equal(await readListingLookups(w.h.db, account, now, r));
    }
  });

  it('shows the block flag and the receipts on each target', async () => {
    const listing = listingOf('ANY_OFFER_CHANGED');
    expect(listing.blocked).to.equal(false);
    expect(listing.mutations.map((m: Json) => m.status)).to.deep.equal(['queued']);
    for (const list of ['campaigns', 'adGroups', 'ads', 'targets', 'negativeTargets'])
      expect(
        listing[list].some((e: Json) => e.mutations.length > 0),
        list,
      ).to.equal(true);
    expect(built.get('ANY_OFFER_CHANGED')!.contexts[0]!.context.advertisingProfiles[0].mutations[0].action).to.equal(
      'create_campaign',
    );
    await w.withhold({ type: 'Listing', id: listing.id }, true);
    const [blocked] = await contexts(
      'ANY_OFFER_CHANGED',
      await offerEventFor(advertised.sku, advertised.marketplace_id),
    );
    expect(blocked!.context.listing.blocked).to.equal(true);
    expect(blocked!.listing?.id).to.equal(listingId(w.account, advertised.marketplace_id, advertised.sku));
  });

  it('the other scopes: the selling partner under its snake_case key, budget figures, the hour, the raw change', () => {
    const partner = built.get('ACCOUNT_STATUS_CHANGED')!.contexts[0]!.context.selling_partner;
    expect(partner.seller_id).to.equal(w.h.simulator.seller.merchantId);
    expect(partner.account_id).to.equal(w.account);
    const usage = built.get('BUDGET_USAGE')!.contexts[0]!.context;
    expect(usage.budget.scopeType).to.equal('CAMPAIGN');
    expect(usage.campaign.data.campaignId).to.be.a('string');
    const portfolio = built.get('BUDGET_USAGE/portfolio')!.contexts[0]!.context;
    expect(portfolio).to.not.have.property('campaign');
    expect(portfolio.portfolio).to.deep.include({ id: '283940192837465', budgetCap: usage.budget.amount });
    const hour = built.get('SP_TRAFFIC')!.contexts[0]!.context;
    expect(hour.budget).to.deep.equal({ amount: null, scopeType: null, eventTime: null, percentage: null });
    expect(hour.metrics.feed).to.equal('sp-traffic');
    expect(hour.metrics.rows).to.be.at.least(1);
    expect(hour.hourlyTraffic.map((h: Json) => h.hour)).to.include(hour.metrics.hour);
    const unsynced = built.get('SP_TRAFFIC/unsynced')!.contexts[0]!.context.campaign;
    expect([unsynced.id, unsynced.name, unsynced.deals]).to.deep.equal([null, null, null]);
    const change = built.get('CAMPAIGN_CHANGE')!.contexts[0]!.context;
    expect(change.change.datasetId).to.equal('campaigns');
    expect(change.campaign.data.campaignId).to.equal(change.change.campaignId);
  });
});
