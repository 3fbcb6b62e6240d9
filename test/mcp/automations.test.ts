import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { createDb, type Knex } from '../../src/infra/db.js';
import { createEventStore, type EventStore } from '../../src/eventstore/index.js';
import { migrate } from '../../src/infra/migrate.js';
import { migrationSteps } from '../../src/migrations.js';
import { accountsProjection } from '../../src/projections/accounts/projection.js';
import { authProjection } from '../../src/projections/auth/projection.js';
import { automationsProjection } from '../../src/projections/automations/projection.js';
import { streamsProjection } from '../../src/projections/streams/projection.js';
import { Projector } from '../../src/projections/projector.js';
import { ACTIVATION_LIMIT } from '../../src/mcp/throttle.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import { assertRebuildEqualsLive } from '../support/projections.js';
import { accountWith, project } from '../support/seed.js';

// The automation lifecycle tools (spec 4.4, 3.1) through the MCP client over HTTP, on the real
// event store and read model: create, edit, activate (one live per event type, racing activations),
// duplicate, archive, reads, every refusal of the spec, and the demo's simulated writes.

describe('automation lifecycle tools over MCP', function () {
  this.timeout(120_000);
  let db: Knex;
  let store: EventStore;
  let projector: Projector;
  let mcp: McpServing;
  let ada: Client;
  let bob: Client;
  let vic: Client;
  let demo: Client;
  const users = { ada: randomUUID(), bob: randomUUID(), vic: randomUUID(), demo: randomUUID() };
  const acc = {
    sellerAds: randomUUID(),
    sellingOnly: randomUUID(),
    bob: randomUUID(),
    vendor: randomUUID(),
    demo: randomUUID(),
  };
  const handle = 'function handle(event, context) {}';

  /** the tool's structured answer; fails the test on a tool error */
  const ok = async (client: Client, tool: string, args: Record<string, unknown>) => {
    const r = await call(client, tool, args);
    expect(r.isError, `${tool}: ${JSON.stringify(r.structuredContent)}`).to.not.equal(true);
    return r.structuredContent;
  };
  /** the tool's error answer */
  const refused = async (client: Client, tool: string, args: Record<string, unknown>) => {
    const r = await call(client, tool, args);
    expect(r.isError, `${tool} should be refused`).to.equal(true);
    return r.structuredContent as { code: string; detail: string };
  };
  const caughtUp = () => projector.whenCaughtUp();
  const create = async (client: Client, args: Record<string, unknown>) =>
    (await ok(client, 'create_automation', { code: handle, ...args })).automation_id as string;
  const activate = (client: Client, automation_id: string) =>
    call(client, 'update_automation', { automation_id, activate: true });
  const get = async (client: Client, automation_id: string) => {
    await caughtUp();
    return ok(client, 'get_automation', { automation_id });
  };
  const clearActivations = () => db.raw(`delete from query_data.calls where kind = ?`, [ACTIVATION_LIMIT.kind]);

  before(async () => {
    db = createDb(process.env.DATABASE_URL!);
    store = createEventStore({ DATABASE_URL: process.env.DATABASE_URL! });
    const projections = [accountsProjection, authProjection, automationsProjection, streamsProjection];
    await migrate(db, migrationSteps(projections, { eventStoreInPostgres: true }));
    await project(db, [
      ...accountWith(acc.sellerAds, users.ada, 'Ada Seller', 'seller', ['selling', 'ads']),
      ...accountWith(acc.sellingOnly, users.ada, 'Ada Shop', 'seller', ['selling']),
      ...accountWith(acc.bob, users.bob, 'Bob', 'seller', ['selling', 'ads']),
      ...accountWith(acc.vendor, users.vic, 'Vic Vendor', 'vendor', ['selling', 'ads']),
      ...accountWith(acc.demo, users.demo, 'Demo Seller', 'seller', ['selling', 'ads']),
    ]);
    projector = new Projector(db, store, [automationsProjection, streamsProjection], { pollMs: 20 });
    projector.start();
    mcp = await serveMcp(db, () => new Date(), users.demo);
    [ada, bob, vic, demo] = await Promise.all([
      mcp.clientFor(users.ada),
      mcp.clientFor(users.bob),
      mcp.clientFor(users.vic),
      mcp.demoClient(),
    ]);
  });

  after(async () => {
    await mcp?.close();
    await projector?.stop();
    await store?.close();
    await db?.destroy();
  });

  beforeEach(clearActivations);

  it('create_automation makes a draft with the event type template as its code', async () => {
    const automation_id = await create(bob, { stream_type: 'PRICING_HEALTH', code: undefined });
    const a = await get(bob, automation_id);
    expect(a).to.include({
      id: automation_id,
      stream_type: 'PRICING_HEALTH',
      state: 'draft',
      subscription: 'none',
      account_id: acc.bob,
      account_name: 'Bob',
      version: 1,
    });
    expect(a.code)
      .to.match(/function handle\(event, context\)/)
      .and.to.contain('PRICING_HEALTH');
    expect(a.versions).to.have.length(1);
    expect(a.versions[0]).to.include({ version: 1, by: users.bob });
  });

  it('edits keep the state and save every code version; activation makes it live; reads show both', async () => {
    const id = await create(ada, { stream_type: 'ORDER_CHANGE', account: acc.sellerAds });
    const edited = await ok(ada, 'update_automation', {
      automation_id: id,
      code: `${handle}\n// v2`,
      title: 'Orders',
    });
    expect(edited).to.include({ state: 'draft' });
    expect(edited.saved).to.deep.equal(['AutomationCodeSaved', 'AutomationRetitled']);
    const live = await ok(ada, 'update_automation', { automation_id: id, activate: true });
    expect(live).to.include({ state: 'live', replaced: null });
    await ok(ada, 'update_automation', { automation_id: id, code: `${handle}\n// v3` });
    const a = await get(ada, id);
    expect(a).to.include({ state: 'live', title: 'Orders', version: 3, code: `${handle}\n// v3` });
    expect(a.versions.map((v: { version: number }) => v.version)).to.deep.equal([1, 2, 3]);
    // the code versions are kept whole in the read model
    const kept = await db('rm.automation_code_versions').where({ automation_id: id }).orderBy('version').pluck('code');
    expect(kept).to.deep.equal([handle, `${handle}\n// v2`, `${handle}\n// v3`]);
  });

  it('activating another automation of the event type deactivates the live one', async () => {
    const first = await create(ada, { stream_type: 'BUDGET_USAGE', account: acc.sellerAds });
    const second = await create(ada, { stream_type: 'BUDGET_USAGE', account: acc.sellerAds });
    await ok(ada, 'update_automation', { automation_id: first, activate: true });
    const answer = await ok(ada, 'update_automation', { automation_id: second, activate: true });
    expect(answer).to.include({ state: 'live', replaced: first });
    expect((await get(ada, first)).state).to.equal('draft');
    expect((await get(ada, second)).state).to.equal('live');
    const listed = await ok(ada, 'list_automations', { stream_type: 'BUDGET_USAGE' });
    expect(listed.automations.map((a: { id: string; state: string }) => [a.id, a.state])).to.deep.equal([
      [second, 'live'],
      [first, 'draft'],
    ]);
    expect(listed.automations[0]).to.not.have.property('code');
  });

  it('racing activations of two drafts of one event type: one live in every round, conflicts seen', async () => {
    let conflicts = 0;
    for (let round = 0; round < 30; round++) {
      if (round % 10 === 0) await clearActivations(); // 2 per round, 20 per minute allowed
      const [a, b] = await Promise.all([
        create(ada, { stream_type: 'SP_TRAFFIC', account: acc.sellerAds }),
        create(ada, { stream_type: 'SP_TRAFFIC', account: acc.sellerAds }),
      ]);
      const answers = await Promise.all([activate(ada, a), activate(ada, b)]);
      const codes = answers.map((r) => (r.isError ? (r.structuredContent as { code: string }).code : 'ok'));
      expect(codes, `round ${round}`).to.include('ok');
      for (const c of codes) expect(['ok', 'activation_conflict'], `round ${round}`).to.include(c);
      if (codes.includes('activation_conflict')) conflicts++;
      await caughtUp();
      const live = (
        await ok(ada, 'list_automations', { stream_type: 'SP_TRAFFIC', account: acc.sellerAds })
      ).automations.filter((x: { state: string }) => x.state === 'live');
      expect(live, `round ${round}: live automations`).to.have.length(1);
      // both succeeded only when they did not overlap: then the later one replaced the earlier
      if (!codes.includes('activation_conflict')) {
        const replaced = answers.map((r) => (r.structuredContent as { replaced: string | null }).replaced);
        expect(replaced[0] === b || replaced[1] === a, `round ${round}: one replaced the other`).to.equal(true);
      }
      // each automation's own stream agrees with the slot
      for (const id of [a, b])
        expect((await get(ada, id)).state, `round ${round}`).to.equal(live[0].id === id ? 'live' : 'draft');
    }
    expect(conflicts, 'activation_conflict in at least one of 30 rounds').to.be.greaterThan(0);
  });

  it('archive deactivates a live automation first; archived ones leave the list and stay readable', async () => {
    const id = await create(ada, { stream_type: 'SP_CONVERSION', account: acc.sellerAds });
    await ok(ada, 'update_automation', { automation_id: id, activate: true });
    expect(await ok(ada, 'archive_automation', { automation_id: id })).to.include({
      state: 'archived',
      deactivated: true,
    });
    expect(await ok(ada, 'archive_automation', { automation_id: id })).to.include({ deactivated: false });
    const a = await get(ada, id);
    expect(a.state).to.equal('archived');
    expect(a.code).to.equal(handle);
    const listed = await ok(ada, 'list_automations', { stream_type: 'SP_CONVERSION' });
    expect(listed.automations.map((x: { id: string }) => x.id)).to.not.include(id);
    const all = await ok(ada, 'list_automations', { stream_type: 'SP_CONVERSION', include_archived: true });
    expect(all.automations.map((x: { id: string }) => x.id)).to.include(id);
    // the slot is free: another automation of the type goes live replacing nothing
    const next = await create(ada, { stream_type: 'SP_CONVERSION', account: acc.sellerAds });
    expect(await ok(ada, 'update_automation', { automation_id: next, activate: true })).to.include({ replaced: null });
    for (const args of [{ title: 'x' }, { activate: true }])
      expect((await refused(ada, 'update_automation', { automation_id: id, ...args })).detail).to.match(/archived/);
    expect((await refused(ada, 'duplicate_automation', { automation_id: id })).code).to.equal('invalid');
  });

  it('duplicate_automation copies a draft or live one into a new draft of the same event type', async () => {
    const id = await create(ada, { stream_type: 'TARGET_CHANGE', account: acc.sellerAds, code: `${handle}\n// mine` });
    await ok(ada, 'update_automation', { automation_id: id, activate: true, title: 'Bids' });
    const copy = await ok(ada, 'duplicate_automation', { automation_id: id });
    const a = await get(ada, copy.automation_id);
    expect(a).to.include({
      state: 'draft',
      stream_type: 'TARGET_CHANGE',
      title: 'Bids (copy)',
      code: `${handle}\n// mine`,
    });
    expect(a.source_automation_id).to.equal(id);
    expect((await get(ada, id)).state).to.equal('live');
  });

  it('saving checks size, syntax and the handle signature, and saves nothing refused', async () => {
    const id = await create(ada, { stream_type: 'ORDER_CHANGE', account: acc.sellingOnly });
    const bad = await refused(ada, 'update_automation', {
      automation_id: id,
      code: 'function handle(event, context) {\n  const x = ;\n}',
    });
    expect(bad).to.deep.include({ code: 'invalid', detail: 'code: line 2, column 13: Unexpected token' });
    expect(
      (await refused(ada, 'update_automation', { automation_id: id, code: 'function handle(e) {}' })).detail,
    ).to.match(/^code: handle must be declared with exactly 2 parameters \(event, context\); it has 1/);
    const big = await refused(ada, 'create_automation', {
      stream_type: 'ORDER_CHANGE',
      account: acc.sellingOnly,
      code: `${handle}\n//${'x'.repeat(100_000)}`,
    });
    expect(big.code).to.equal('code_too_large');
    expect(
      (
        await refused(ada, 'create_automation', {
          stream_type: 'ORDER_CHANGE',
          account: acc.sellingOnly,
          code: 'let x',
        })
      ).detail,
    ).to.match(/^code: no function named handle/);
    expect((await get(ada, id)).version).to.equal(1);
  });

  it('refuses with the spec codes: account, event type, connection, entity, ownership', async () => {
    expect((await refused(ada, 'create_automation', { stream_type: 'ORDER_CHANGE' })).code).to.equal(
      'account_required',
    );
    const unknown = await refused(bob, 'create_automation', { stream_type: 'NOPE' });
    expect(unknown).to.include({ code: 'unknown_stream_type' });
    expect(unknown.detail).to.contain("'NOPE'");
    expect((await refused(bob, 'create_automation', { stream_type: 'REPORT_PROCESSING_FINISHED' })).code).to.equal(
      'unknown_stream_type',
    );
    const noAds = await refused(ada, 'create_automation', { stream_type: 'BUDGET_USAGE', account: acc.sellingOnly });
    expect(noAds.code).to.equal('owner_not_connected');
    expect(noAds.detail).to.contain('advertising connection').and.to.contain(acc.sellingOnly);
    const vendor = await refused(vic, 'create_automation', { stream_type: 'ANY_OFFER_CHANGED' });
    expect(vendor.code).to.equal('stream_type_not_for_entity');
    // listing by event type reads the same codes: a typo is not an empty list
    expect(await refused(ada, 'list_automations', { stream_type: 'NOPE' })).to.include({ code: 'unknown_stream_type' });
    for (const args of [{}, { account: acc.vendor }]) {
      const listed = await refused(vic, 'list_automations', { stream_type: 'ANY_OFFER_CHANGED', ...args });
      expect(listed).to.include({ code: 'stream_type_not_for_entity', argument: 'stream_type' });
    }
    expect((await call(vic, 'list_automations', { stream_type: 'CAMPAIGN_CHANGE' })).isError).to.not.equal(true);
    // list_events reads the same rule (it refuses before reading any event)
    expect(
      (await refused(vic, 'list_events', { stream_type: 'ANY_OFFER_CHANGED', account: acc.vendor })).code,
    ).to.equal('stream_type_not_for_entity');
    expect(await create(vic, { stream_type: 'CAMPAIGN_CHANGE' })).to.be.a('string');
    const adas = await create(ada, { stream_type: 'ORDER_CHANGE', account: acc.sellingOnly });
    for (const [tool, args] of [
      ['get_automation', {}],
      ['update_automation', { title: 'mine now' }],
      ['update_automation', { activate: true }],
      ['duplicate_automation', {}],
      ['archive_automation', {}],
    ] as const) {
      const r = await refused(bob, tool, { automation_id: adas, ...args });
      expect(r.code, tool).to.equal('automation_not_found');
      expect(r.detail, tool).to.contain(adas);
    }
    expect((await refused(bob, 'get_automation', { automation_id: 'not-an-id' })).code).to.equal(
      'automation_not_found',
    );
    expect((await refused(bob, 'create_automation', { stream_type: 'ORDER_CHANGE', extra: 1 })).code).to.equal(
      'unknown_argument',
    );
    expect((await get(ada, adas)).title).to.equal('ORDER_CHANGE automation');
  });

  it(`refuses activations over ${ACTIVATION_LIMIT.calls} per ${ACTIVATION_LIMIT.windowSeconds} s per user with rate_limited`, async () => {
    const id = await create(bob, { stream_type: 'AD_CHANGE' });
    for (let i = 0; i < ACTIVATION_LIMIT.calls; i++)
      await ok(bob, 'update_automation', { automation_id: id, activate: true });
    const limited = await refused(bob, 'update_automation', { automation_id: id, activate: true, title: 'not saved' });
    expect(limited.code).to.equal('rate_limited');
    expect(limited.detail).to.match(/^20 automation activations per 60 seconds: retry in \d+ seconds$/);
    expect((await get(bob, id)).title).to.not.equal('not saved');
    // edits without activation are not counted
    await ok(bob, 'update_automation', { automation_id: id, title: 'still editable' });
    // another user's activations are not counted against bob's
    const adas = await create(ada, { stream_type: 'AD_CHANGE', account: acc.sellerAds });
    await ok(ada, 'update_automation', { automation_id: adas, activate: true });
  });

  it('the demo validates and simulates writes, recording nothing, and reads its own accounts', async () => {
    const before = Number((await db('events').count<{ count: string }[]>())[0]!.count);
    const made = await ok(demo, 'create_automation', { stream_type: 'ANY_OFFER_CHANGED' });
    expect(made).to.include({ simulated: true, state: 'draft', account_id: acc.demo });
    expect(
      (await refused(demo, 'create_automation', { stream_type: 'ANY_OFFER_CHANGED', code: 'nope(' })).code,
    ).to.equal('invalid');
    expect((await refused(demo, 'get_automation', { automation_id: made.automation_id })).code).to.equal(
      'automation_not_found',
    );
    expect(Number((await db('events').count<{ count: string }[]>())[0]!.count)).to.equal(before);
    expect((await ok(demo, 'list_automations', {})).automations).to.deep.equal([]);
  });

  it('the read model rebuilt from the log equals the live one', async () => {
    await caughtUp();
    await assertRebuildEqualsLive(db, store, automationsProjection);
  });
});
