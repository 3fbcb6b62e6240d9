import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { MarketplaceEndpoints } from '../../src/marketplace/simulator/index.js';
import { setPriceOnExternalChange } from '../support/automation.js';
import { call } from '../support/mcp.js';
import { clientsFor, consumerPrices, injectFault, listingSubmissions } from '../support/marketplace.js';
import { cli, eventually, runEntry, waitForLog } from '../support/processes.js';
import { runSync, startConnectedService, type ConnectedService } from '../support/service.js';

// revert_mutations end to end, through the service as `npm start` runs it (its simulator,
// PostgreSQL, Redis queue and dispatch worker) and MCP over HTTP: a live automation reprices two
// listings; one of them is changed again by hand; reverting the automation's changes restores the
// first listing's price in the simulator and leaves the second alone as a conflict; the same
// revert again under its key admits nothing new. Also: a dry run admits nothing, bad input is
// refused naming the value, an archive is not revertible, a creation is reverted by archiving
// what it created, an ads bid change is reverted in the simulator, a failed live read falls back
// to an observation made since the change, and the operator CLI does the same as a process.

const US = 'ATVPDKIKX0DER';
const SET = 7.77;
const BY_HAND = 9.99;
/** the Listings Items read of one SKU, as the live read of a revert asks for it */
const itemRoute = (sku: string) => `GET /listings/2021-08-01/items/*/${encodeURIComponent(sku)}`;
type Row = Record<string, any>;

const SET_PRICE = setPriceOnExternalChange(SET);

describe('revert_mutations end to end (npm start)', function () {
  this.timeout(600_000);
  let e2e: ConnectedService;
  let simulator: string;
  let client: Client;
  let account: string;
  let price: (sku: string) => Promise<number>;
  let ads: ReturnType<typeof clientsFor>['ads'];

  before(async () => {
    e2e = await startConnectedService('revert', { STREAMS_SWEEP_MS: '1000', SIMULATOR_MARKET_PACE_MS: '0' });
    ({ simulator, client, account } = e2e);
    const line = await waitForLog(e2e.service, (r) => r.msg === 'marketplace simulator listening');
    const { selling, ads: adsClient } = clientsFor(line.endpoints as MarketplaceEndpoints);
    ads = adsClient;
    const sellerId = await eventually(
      async () =>
        ((await tool('connection_status', {})).accounts as Row[]).find((a) => a.id === account)?.selling
          ?.provider_id as string | undefined,
      'the selling connection',
      200_000,
    );
    price = consumerPrices(selling, sellerId, US);
  });
  after(() => e2e?.stop());

  async function tool(name: string, args: Row): Promise<Row> {
    const out = await call(client, name, args);
    expect(out.isError, `${name}: ${JSON.stringify(out.structuredContent)}`).to.equal(undefined);
    return out.structuredContent;
  }
  const refusal = async (name: string, args: Row) => {
    const out = await call(client, name, args);
    expect(out.isError, `${name} should refuse ${JSON.stringify(args)}`).to.equal(true);
    return out.structuredContent;
  };
  const submitted = (id: string) =>
    eventually(
      async () => {
        const r = await tool('get_mutation', { id });
        return r.status === 'submitted' ? r : undefined;
      },
      `receipt ${id} to be submitted`,
      120_000,
    );
  const reverting = async () =>
    ((await tool('list_mutations', { account, limit: 100 })).mutations as Row[]).filter((m) => m.caused_by?.reverts);
  /** The account's buyable listings, and one of each ASIN (an event reaches every listing of its ASIN). */
  const listings = () =>
    eventually(
      async () => {
        const all = ((await tool('list_listings', { marketplace_id: US, limit: 100 })).listings as Row[]).filter(
          (l) => l.asin && l.status === 'BUYABLE',
        );
        const distinct = all.filter((l, i) => all.findIndex((o) => o.asin === l.asin) === i);
        return distinct.length >= 6 ? { all, distinct } : undefined;
      },
      "the account's listings",
      400_000,
    );
  /** Sets the listing's consumer price through patch_listing; the receipt once applied. */
  const setPrice = async (l: Row, value: number) => {
    const queued = await tool('patch_listing', {
      sku: l.sku,
      marketplace_id: US,
      patches: [
        {
          op: 'merge',
          path: '/attributes/purchasable_offer',
          value: [
            {
              marketplace_id: US,
              currency: l.currency,
              audience: 'ALL',
              our_price: [{ schedule: [{ value_with_tax: value }] }],
            },
          ],
        },
      ],
    });
    const done = await submitted(queued.receipt.id);
    expect(done.outcome).to.equal('accepted');
    return done;
  };
  /** A new automation setting SET, live on ANY_OFFER_CHANGED (the one live before is deactivated). */
  const liveAutomation = async () => {
    const { automation_id } = await tool('create_automation', {
      stream_type: 'ANY_OFFER_CHANGED',
      account,
      code: SET_PRICE,
    });
    await tool('update_automation', { automation_id, activate: true });
    await eventually(
      async () =>
        ((await tool('list_streams', { account })).streams as Row[]).find(
          (r) => r.stream_type === 'ANY_OFFER_CHANGED' && r.status === 'active',
        ),
      'ANY_OFFER_CHANGED to be active',
      120_000,
    );
    return automation_id as string;
  };
  /** A competitor moves on each listing's offer; the automation's changes once all of `reached` are applied. */
  const changesOf = async (automation_id: string, moved: Row[], reached: number) => {
    for (const l of moved)
      await fetch(`${simulator}/_sim/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'ANY_OFFER_CHANGED', sku: l.sku, marketplaceId: US }),
      }).then((r) => expect(r.status).to.equal(202));
    const actions = await eventually(
      async () => {
        const rows = ((await tool('list_automation_actions', { automation_id })).actions as Row[]).filter(
          (x) => x.kind === 'mutation',
        );
        return rows.length === reached ? rows : undefined;
      },
      'the price changes',
      120_000,
    );
    for (const x of actions) await submitted(x.receipt_id);
    return actions;
  };

  it("reverts a live automation's applied price changes: the prior price is back, a target changed since is a conflict, the same key admits nothing new", async () => {
    // two listings of different ASINs (an event reaches every listing of its ASIN: all are the automation's changes)
    const { all, distinct } = await listings();
    const [a, b] = [distinct[0]!, distinct[1]!];
    const reached = all.filter((l) => l.asin === a.asin || l.asin === b.asin);
    const prior = { a: await price(a.sku), b: await price(b.sku) };
    expect([prior.a, prior.b]).to.not.include(SET);

    const since = new Date().toISOString();
    const automation_id = await liveAutomation();
    const actions = await changesOf(automation_id, [a, b], reached.length);
    const changeOf = (l: Row) => actions.find((x) => x.sku === l.sku)!.receipt_id as string;
    expect([await price(a.sku), await price(b.sku)]).to.deep.equal([SET, SET]);

    // b changed by hand since
    await setPrice(b, BY_HAND);

    // the dry run answers what it would queue and admits nothing
    const dry = await tool('revert_mutations', { automation_id, since, dry_run: true });
    const itemOf = (answer: Row, l: Row) => (answer.items as Row[]).find((i) => i.receipt_id === changeOf(l))!;
    expect(dry.items).to.have.length(reached.length);
    expect(itemOf(dry, a)).to.include({
      result: 'would_queue',
      target_type: 'Listing',
      target_id: a.id,
      checked_by: 'live_read',
    });
    expect(itemOf(dry, a).revert.payload.patches[0]).to.include({
      op: 'replace',
      path: '/attributes/purchasable_offer',
    });
    expect(itemOf(dry, b)).to.include({ result: 'conflict', checked_by: 'live_read' });
    expect(JSON.stringify(itemOf(dry, b).current)).to.include(String(BY_HAND));
    expect(dry).to.include({ queued: 0, left_alone: 1 });
    const reverts = reached.length - 1;
    expect(await reverting()).to.deep.equal([]);

    const first = await tool('revert_mutations', { automation_id, since, idempotency_key: 'undo-monday' });
    expect(first).to.include({ queued: reverts, left_alone: 1, replayed: false });
    expect(itemOf(first, b).result).to.equal('conflict');
    const revert = itemOf(first, a).receipt;
    expect(itemOf(first, a).result).to.equal('queued');
    expect(revert).to.include({ status: 'queued', target_type: 'Listing', target_id: a.id, action: 'update' });

    // dispatched: the simulator shows a's prior price again, and b as it was set by hand
    const done = await submitted(revert.id);
    expect(done).to.include({ outcome: 'accepted' });
    expect(done.caused_by).to.deep.equal({ reverts: changeOf(a) });
    expect(await price(a.sku)).to.equal(prior.a);
    expect(await price(b.sku)).to.equal(BY_HAND);
    const made = await reverting();
    expect(made).to.have.length(reverts);
    expect(made.find((m) => m.id === revert.id)!.caused_by).to.deep.equal({ reverts: changeOf(a) });

    // the same revert again under its key: the first receipt, nothing new admitted
    const again = await tool('revert_mutations', { automation_id, since, idempotency_key: 'undo-monday' });
    expect(again).to.include({ replayed: true, queued: reverts });
    expect(itemOf(again, a).receipt.id).to.equal(revert.id);
    expect(await reverting()).to.have.length(reverts);
    // and without a key: a's change is reverted already
    const unkeyed = await tool('revert_mutations', { receipt_ids: [changeOf(a)] });
    expect(unkeyed.items[0]).to.include({ result: 'already_reverted', reverted_by: revert.id });
    expect(await reverting()).to.have.length(reverts);
    // one patch each: the automation's, the hand's on b, and the reverts
    const skus = reached.map((l) => l.sku);
    const patches = (await listingSubmissions(simulator)).filter((s) => skus.includes(s.sku));
    expect(patches).to.have.length(reached.length + 1 + reverts);
  });

  it('refuses bad input naming the value', async () => {
    const notId = await refusal('revert_mutations', { receipt_ids: ['not-a-receipt'] });
    expect(notId).to.include({ code: 'invalid' });
    expect(notId.detail).to.include("'not-a-receipt'");
    const unknown = await refusal('revert_mutations', { receipt_ids: ['00000000-0000-4000-8000-000000000000'] });
    expect(unknown).to.include({ code: 'invalid' });
    expect(unknown.detail).to.include('00000000-0000-4000-8000-000000000000');
    const window = await refusal('revert_mutations', {
      automation_id: '00000000-0000-4000-8000-000000000000',
      since: 'last monday',
    });
    expect(window).to.include({ code: 'invalid_window' });
    expect(window.detail).to.include("'last monday'");
    const none = await refusal('revert_mutations', {});
    expect(none).to.include({ code: 'invalid' });
  });

  it('reverts a creation by archiving what it created; an archive is not revertible', async () => {
    const campaign = await eventually(
      async () =>
        ((await tool('list_ads_entities', { target_type: 'Campaign', limit: 50 })).rows as Row[]).find(
          (c) => c.state === 'enabled' && c.account_id === account,
        ),
      "the account's campaigns",
      400_000,
    );
    const queued = await tool('queue_mutations', {
      mutations: [
        {
          target: { type: 'Campaign', id: campaign.id },
          action: 'create_ad_group',
          payload: { name: `revert e2e ${Date.now()}`, state: 'ENABLED', defaultBid: 0.55 },
        },
      ],
    });
    const creation = await eventually(
      async () => {
        const r = await submitted(queued.results[0].receipt.id);
        return r.created ? r : undefined;
      },
      'the ad group to be created',
      60_000,
    );
    const undo = await tool('revert_mutations', { receipt_ids: [creation.id] });
    expect(undo.items[0], JSON.stringify(undo.items[0])).to.include({ result: 'queued' });
    expect(undo.items[0].revert).to.deep.equal({
      target: { type: 'AdGroup', id: creation.created.id },
      action: 'archive',
      payload: {},
    });
    const archived = await submitted(undo.items[0].receipt.id);
    expect(archived).to.include({ outcome: 'accepted', action: 'archive', target_id: creation.created.id });
    expect(archived.caused_by).to.deep.equal({ reverts: creation.id });

    // that archive cannot itself be reverted
    const again = await tool('revert_mutations', { receipt_ids: [archived.id] });
    expect(again.items[0]).to.include({ result: 'not_revertible', revert: null, receipt: null });
    expect(again.items[0].detail).to.include('archive is permanent');
    expect(again).to.include({ queued: 0, left_alone: 1 });
  });

  it("reverts an ads update: a keyword's bid is back in the simulator; a bid changed since is a conflict, read live or observed", async () => {
    const keyword = await eventually(
      async () =>
        ((await tool('list_ads_entities', { target_type: 'Target', limit: 50 })).rows as Row[]).find(
          (t) => t.account_id === account && t.state === 'enabled' && !t.negative && t.bid && t.data.keywordId,
        ),
      "the account's keywords",
      400_000,
    );
    const bid = async () => {
      const { items } = await ads.sp.list(String(keyword.provider_profile_id), 'keywords', {
        keywordIdFilter: { include: [String(keyword.data.keywordId)] },
      });
      return Number(items[0]!.bid);
    };
    const setBid = async (value: number) => {
      const queued = await tool('queue_mutations', {
        mutations: [{ target: { type: 'Target', id: keyword.id }, action: 'update', payload: { bid: { bid: value } } }],
      });
      const done = await submitted(queued.results[0].receipt.id);
      expect(done.outcome).to.equal('accepted');
      return done;
    };
    const prior = await bid();
    const cents = (v: number) => Math.round(v * 100) / 100;
    const raised = cents(prior + 0.37);
    const later = cents(raised + 0.11);
    const change = await setBid(raised);
    expect(await bid()).to.equal(raised);

    const undo = await tool('revert_mutations', { receipt_ids: [change.id] });
    expect(undo.items[0]).to.include({ result: 'queued', checked_by: 'live_read' });
    expect(undo.items[0].revert).to.deep.equal({
      target: { type: 'Target', id: keyword.id },
      action: 'update',
      payload: { bid: { bid: prior } },
    });
    const reverted = await submitted(undo.items[0].receipt.id);
    expect(reverted).to.include({ outcome: 'accepted' });
    expect(reverted.caused_by).to.deep.equal({ reverts: change.id });
    expect(await bid()).to.equal(prior);

    // changed twice more: reverting only the first of them finds the second's bid, and leaves it
    const first = await setBid(raised);
    const second = await setBid(later);
    const conflict = await tool('revert_mutations', { receipt_ids: [first.id] });
    expect(conflict.items[0]).to.deep.include({
      result: 'conflict',
      checked_by: 'live_read',
      current: { bid: later },
      receipt: null,
    });
    expect(conflict).to.include({ queued: 0, left_alone: 1 });
    expect(await bid()).to.equal(later);
    expect(second.outcome).to.equal('accepted');

    // observed since, and the live read failing: the same conflict, seen in the observation
    await runSync(e2e, 'ads-entities');
    await eventually(
      async () => {
        const rows = (await tool('list_ads_entities', { target_type: 'Target', limit: 50 })).rows as Row[];
        return Number(rows.find((t) => t.id === keyword.id)?.bid) === later ? true : undefined;
      },
      'the keyword observed with its new bid',
      120_000,
    );
    const fault = await injectFault(simulator, { route: 'POST /sp/keywords/list', kind: '5xx', times: 1 });
    expect(fault.status).to.equal(201);
    const observed = await tool('revert_mutations', { receipt_ids: [first.id] });
    await fetch(`${simulator}/_sim/faults`, { method: 'DELETE' });
    expect(observed.items[0]).to.deep.include({
      result: 'conflict',
      checked_by: 'observation',
      current: { bid: later },
    });
    expect(observed.items[0].detail).to.include('live read failed');
  });

  it('when the live read fails, checks the target against its latest observation if made since the change: a revert, a conflict, else unverified', async () => {
    const { distinct } = await listings();
    const [e, f] = [distinct[4]!, distinct[5]!];
    const prior = await price(e.sku);
    const toE = await setPrice(e, SET);
    const toF = await setPrice(f, SET);
    await setPrice(f, BY_HAND);
    // the next live read of each fails as a marketplace outage would
    const failLiveReads = async () => {
      for (const l of [e, f])
        expect((await injectFault(simulator, { route: itemRoute(l.sku), kind: '5xx', times: 1 })).status).to.equal(201);
    };
    const clearFaults = () => fetch(`${simulator}/_sim/faults`, { method: 'DELETE' });
    const itemOf = (answer: Row, change: Row) => (answer.items as Row[]).find((i) => i.receipt_id === change.id)!;

    // the listings were last observed before these changes: unverified
    await failLiveReads();
    const early = await tool('revert_mutations', { receipt_ids: [toE.id, toF.id], dry_run: true });
    await clearFaults();
    for (const change of [toE, toF]) {
      expect(itemOf(early, change)).to.include({ result: 'unverified' });
      expect(itemOf(early, change)).to.not.have.property('checked_by');
      expect(itemOf(early, change).detail).to.include('was made before the change was applied');
    }

    // observed since: e shows its change, f the price set by hand after it
    await runSync(e2e, 'listings');
    await eventually(
      async () => {
        const rows = (await tool('list_listings', { marketplace_id: US, limit: 100 })).listings as Row[];
        const priceOf = (l: Row) => rows.find((r) => r.sku === l.sku)?.price;
        return priceOf(e) === Math.round(SET * 100) && priceOf(f) === Math.round(BY_HAND * 100) ? true : undefined;
      },
      'the listings observed with their new prices',
      120_000,
    );
    await failLiveReads();
    const answer = await tool('revert_mutations', { receipt_ids: [toE.id, toF.id] });
    await clearFaults();
    expect(answer).to.include({ queued: 1, left_alone: 1 });
    const onE = itemOf(answer, toE);
    expect(onE).to.include({ result: 'queued', checked_by: 'observation' });
    expect(Date.parse(onE.observed_at)).to.be.above(Date.parse(toE.recorded_at));
    expect(onE.detail).to.include('latest observation');
    const onF = itemOf(answer, toF);
    expect(onF).to.include({ result: 'conflict', checked_by: 'observation', receipt: null });
    expect(Date.parse(onF.observed_at)).to.be.above(Date.parse(toF.recorded_at));
    expect(JSON.stringify(onF.current)).to.include(String(BY_HAND));

    // e's revert dispatched: its prior price is back; f is as it was set by hand
    expect(await submitted(onE.receipt.id)).to.include({ outcome: 'accepted' });
    expect(await price(e.sku)).to.equal(prior);
    expect(await price(f.sku)).to.equal(BY_HAND);
  });

  it('the operator CLI reverts as a process: a dry run, by receipt, by automation since; bad input exits non-zero naming the value', async () => {
    const { all, distinct } = await listings();
    const [c, d] = [distinct[2]!, distinct[3]!];
    const prior = { c: await price(c.sku), d: await price(d.sku) };
    const byHand = await setPrice(d, BY_HAND);
    const since = new Date().toISOString();
    const automation_id = await liveAutomation();
    const actions = await changesOf(automation_id, [c], all.filter((l) => l.asin === c.asin).length);
    expect(await price(c.sku)).to.equal(SET);

    // the CLI reads targets live at the simulator's port, as the service does
    const env = { ...e2e.env, SIMULATOR_PORT: new URL(simulator).port };
    const args = (...rest: string[]) => ['mutations', 'revert', '--user', e2e.userId, ...rest];
    const lineOf = (out: string, id: string) =>
      out.split('\n').find((l) => l.startsWith(id)) ?? `no line for ${id} in: ${out}`;
    const queuedBy = (out: string, id: string) => {
      const line = lineOf(out, id);
      expect(line).to.match(new RegExp(`^${id}  queued \\S+$`));
      return line.split(' ').at(-1)!;
    };

    // a dry run admits nothing; without the simulator's port it says why it can't read live
    const made = (await reverting()).length;
    expect(lineOf(await cli(args('--receipt', byHand.id, '--dry-run'), env), byHand.id)).to.equal(
      `${byHand.id}  would_queue`,
    );
    const blind = lineOf(await cli(args('--receipt', byHand.id, '--dry-run'), e2e.env), byHand.id);
    expect(blind).to.match(new RegExp(`^${byHand.id}  unverified  `));
    expect(blind).to.include('SIMULATOR_PORT is 0');
    expect(await reverting()).to.have.length(made);

    // by receipt: dispatched, d's prior price is back
    const undoD = queuedBy(await cli(args('--receipt', byHand.id), env), byHand.id);
    const doneD = await submitted(undoD);
    expect(doneD).to.include({ outcome: 'accepted' });
    expect(doneD.caused_by).to.deep.equal({ reverts: byHand.id });
    expect(await price(d.sku)).to.equal(prior.d);

    // by automation since: each of its changes, c's prior price back
    const out = await cli(args('--automation', automation_id, '--since', since), env);
    for (const x of actions) expect(await submitted(queuedBy(out, x.receipt_id))).to.include({ outcome: 'accepted' });
    expect(await price(c.sku)).to.equal(prior.c);
    expect(await reverting()).to.have.length(made + 1 + actions.length);

    // bad input: a non-zero exit, the message naming the value (the processes side by side)
    const refused = async (argv: readonly string[]) => {
      const run = runEntry('cli.js', [...argv], env);
      return { code: await run.exit, message: run.stderr() };
    };
    const cases = [
      [args('--receipt', 'not-a-receipt'), "'not-a-receipt'"],
      [args('--receipt', '00000000-0000-4000-8000-000000000000'), "'00000000-0000-4000-8000-000000000000'"],
      [args('--automation', automation_id, '--since', 'last monday'), "'last monday'"],
      [args('--receipt', byHand.id, '--key', 'k'), 'receipt_ids, admitted_with_key'],
      [args('--receipts', byHand.id), '--receipts'],
      [['mutations', 'revert', '--receipt', byHand.id], '--user is required'],
    ] as const;
    const answers = await Promise.all(cases.map(([argv]) => refused(argv)));
    cases.forEach(([, named], i) => {
      const { code, message } = answers[i]!;
      expect(code, message).to.not.equal(0);
      expect(message).to.include(named);
    });
    // a missing argument is a usage error
    expect(answers.at(-1)!.code).to.equal(2);
  });
});
