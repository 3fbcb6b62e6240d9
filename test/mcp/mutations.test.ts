import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { executeMutationCommand } from '../../src/commands/mutation/execute.js';
import type { MutationCommand } from '../../src/domain/mutation/decide.js';
import { ACTIONS, PAYLOADS, TARGET_TYPES, type Action, type TargetType } from '../../src/domain/mutation/payloads.js';
import { createEventStore, type EventStore, type Position } from '../../src/eventstore/index.js';
import { createDb } from '../../src/infra/db.js';
import { migrate } from '../../src/infra/migrate.js';
import { migrationSteps } from '../../src/migrations.js';
import { mutationsProjection } from '../../src/projections/mutations/projection.js';
import { Projector } from '../../src/projections/projector.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import { prepareReadModels, project } from '../support/seed.js';

// get_mutation, list_mutations and get_mutation_schema through the MCP client over HTTP, over
// receipts recorded by the command handler in the real event store and projected by the real
// projector.

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const iso = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

describe('mutation tools over MCP', function () {
  this.timeout(60000);
  let db: Knex;
  let store: EventStore;
  let projector: Projector;
  let mcp: McpServing;
  let ada: Client;
  let bob: Client;
  const users = { ada: randomUUID(), bob: randomUUID() };
  const accounts = { north: randomUUID(), south: randomUUID(), bobs: randomUUID() };
  const listing = randomUUID();
  const campaign = randomUUID();
  let clock = 0;
  let last: Position | null = null;
  /** every receipt of Ada's, in admission order */
  const adas: {
    id: string;
    account: string;
    target: { type: TargetType; id: string };
    action: Action;
    key: string | null;
  }[] = [];
  let bobsReceipt = '';

  const run = async (command: MutationCommand) => {
    last =
      (await executeMutationCommand({ store, metadata: { actor: { kind: 'user', id: 'test' } } }, command)).position ??
      last;
  };
  const admit = async (
    account: string,
    target: { type: TargetType; id: string },
    action: Action,
    payload: Record<string, unknown>,
    key: string | null = null,
    user = users.ada,
  ) => {
    const receipt_id = randomUUID();
    await run({
      type: 'AdmitMutation',
      receipt_id,
      account_id: account,
      target,
      provider:
        target.type === 'Listing'
          ? { sku: 'SKU-1', marketplaceId: 'ATVPDKIKX0DER' }
          : { profileId: '3001', campaignId: '111' },
      action,
      payload,
      idempotency: key ? { namespace: user, key, fingerprint: 'f', expires_at: iso(86400) } : null,
      created_at: iso(clock++),
      blocked: null,
    });
    return receipt_id;
  };
  const patch = {
    productType: 'PRODUCT',
    patches: [
      {
        op: 'replace',
        path: '/attributes/purchasable_offer',
        value: [
          {
            marketplace_id: 'ATVPDKIKX0DER',
            currency: 'USD',
            audience: 'ALL',
            our_price: [{ schedule: [{ value_with_tax: 19.99 }] }],
          },
        ],
      },
    ],
  };

  before(async () => {
    db = createDb(process.env.DATABASE_URL!);
    await prepareReadModels(db);
    await project(db, [
      {
        type: 'AccountRegistered',
        data: { account_id: accounts.north, user_id: users.ada, name: 'North', entity_type: 'seller' },
      },
      {
        type: 'AccountRegistered',
        data: { account_id: accounts.south, user_id: users.ada, name: 'South', entity_type: 'seller' },
      },
      {
        type: 'AccountRegistered',
        data: { account_id: accounts.bobs, user_id: users.bob, name: 'Elsewhere', entity_type: 'seller' },
      },
    ]);
    store = createEventStore({ DATABASE_URL: process.env.DATABASE_URL! });
    await migrate(db, migrationSteps([mutationsProjection], { eventStoreInPostgres: true }));
    projector = new Projector(db, store, [mutationsProjection], { pollMs: 50 });
    projector.start();

    // 28 listing patches on North (one under an idempotency key), 2 campaign updates on South
    for (let i = 0; i < 28; i++) {
      const key = i === 5 ? 'price-run-1' : null;
      adas.push({
        id: await admit(accounts.north, { type: 'Listing', id: listing }, 'update', patch, key),
        account: accounts.north,
        target: { type: 'Listing', id: listing },
        action: 'update',
        key,
      });
    }
    for (let i = 0; i < 2; i++) {
      adas.push({
        id: await admit(accounts.south, { type: 'Campaign', id: campaign }, 'archive', {}),
        account: accounts.south,
        target: { type: 'Campaign', id: campaign },
        action: 'archive',
        key: null,
      });
    }
    // the first listing patch is submitted and accepted; the second's target was deleted before it was sent
    await run({ type: 'StartDispatch', receipt_id: adas[0]!.id, started_at: iso(clock++) });
    await run({
      type: 'RecordSubmission',
      receipt_id: adas[0]!.id,
      http_status: 200,
      response: { sku: 'SKU-1', status: 'ACCEPTED', submissionId: 'sub-1', issues: [] },
      request_id: 'req-1',
      error: null,
      recorded_at: iso(clock++),
      submission_id: 'sub-1',
      accepted: true,
      created: null,
    });
    await run({ type: 'RecordTargetDeleted', receipt_id: adas[1]!.id, recorded_at: iso(clock++) });
    bobsReceipt = await admit(
      accounts.bobs,
      { type: 'Listing', id: randomUUID() },
      'update',
      patch,
      'price-run-1',
      users.bob,
    );
    await projector.whenCaughtUp(last);

    mcp = await serveMcp(db, () => new Date(T0));
    ada = await mcp.clientFor(users.ada);
    bob = await mcp.clientFor(users.bob);
  });

  after(async () => {
    await mcp.close();
    await projector.stop();
    await store.close();
    await db.destroy();
  });

  describe('get_mutation', () => {
    it('returns the receipt with payload, provider response and the history of its stream', async () => {
      const res = await call(ada, 'get_mutation', { id: adas[0]!.id });
      expect(res.isError).to.not.equal(true);
      const m = res.structuredContent;
      expect(m).to.include({
        id: adas[0]!.id,
        status: 'submitted',
        outcome: 'accepted',
        accepted: true,
        http_status: 200,
        request_id: 'req-1',
        submission_id: 'sub-1',
      });
      expect(m).to.include({
        account_id: accounts.north,
        account_name: 'North',
        target_type: 'Listing',
        target_id: listing,
        action: 'update',
        created: null,
      });
      expect(m.payload).to.deep.equal(patch);
      expect(m.response).to.deep.equal({ sku: 'SKU-1', status: 'ACCEPTED', submissionId: 'sub-1', issues: [] });
      const stream = await store.readStream(`mutation-${adas[0]!.id}`);
      expect(m.history.map((h: { type: string; data: unknown }) => [h.type, h.data])).to.deep.equal(
        stream.map((e) => [e.type, e.data]),
      );
    });

    it('a receipt whose target the marketplace deleted stays readable, blocked with the reason', async () => {
      const m = (await call(ada, 'get_mutation', { id: adas[1]!.id })).structuredContent;
      expect(m).to.include({ status: 'blocked', outcome: 'blocked', accepted: false });
      expect(m.error).to.deep.equal({
        code: 'blocked',
        reason: 'target_deleted',
        message: 'the marketplace deleted the target before this request was sent',
      });
      expect(m.history.map((h: { type: string }) => h.type)).to.deep.equal(['MutationAdmitted', 'MutationBlocked']);
    });

    it("an unknown id and another user's receipt both read as not_found", async () => {
      for (const id of [randomUUID(), bobsReceipt, 'nonsense']) {
        const res = await call(ada, 'get_mutation', { id });
        expect(res.isError, id).to.equal(true);
        expect(res.structuredContent).to.include({ code: 'not_found', argument: 'id' });
        expect(res.structuredContent.detail).to.contain(id);
      }
      expect((await call(bob, 'get_mutation', { id: bobsReceipt })).structuredContent.id).to.equal(bobsReceipt);
    });

    it('id is required; other arguments are unknown_argument', async () => {
      expect((await call(ada, 'get_mutation', {})).structuredContent.code).to.equal('invalid');
      expect(
        (await call(ada, 'get_mutation', { id: adas[0]!.id, account: accounts.north })).structuredContent.code,
      ).to.equal('unknown_argument');
    });
  });

  describe('list_mutations', () => {
    const newestFirst = () => [...adas].reverse();

    it('lists 25 newest first by default, without payload or provider response, then follows next_cursor to the end', async () => {
      const first = (await call(ada, 'list_mutations')).structuredContent;
      expect(first.mutations.map((m: { id: string }) => m.id)).to.deep.equal(
        newestFirst()
          .slice(0, 25)
          .map((r) => r.id),
      );
      for (const m of first.mutations) {
        expect(m).not.to.have.property('payload');
        expect(m).not.to.have.property('response');
        expect(m.account_name).to.equal(m.account_id === accounts.north ? 'North' : 'South');
      }
      expect(first.next_cursor).to.be.a('string');
      const second = (await call(ada, 'list_mutations', { cursor: first.next_cursor })).structuredContent;
      expect(second.mutations.map((m: { id: string }) => m.id)).to.deep.equal(
        newestFirst()
          .slice(25)
          .map((r) => r.id),
      );
      expect(second.next_cursor).to.equal(null);
    });

    it('pages with limit, every receipt exactly once', async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = (await call(ada, 'list_mutations', { limit: 7, ...(cursor ? { cursor } : {}) })).structuredContent;
        expect(page.mutations.length).to.be.at.most(7);
        seen.push(...page.mutations.map((m: { id: string }) => m.id));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      expect(seen).to.deep.equal(newestFirst().map((r) => r.id));
    });

    it('filters: account, status, pending, target, operation, idempotency key (own namespace only)', async () => {
      const ids = async (args: Record<string, unknown>, client = ada) =>
        (await call(client, 'list_mutations', { limit: 100, ...args })).structuredContent.mutations.map(
          (m: { id: string }) => m.id,
        );
      const expectIds = (rows: typeof adas) => rows.map((r) => r.id).reverse();
      expect(await ids({ account: accounts.south })).to.deep.equal(
        expectIds(adas.filter((r) => r.account === accounts.south)),
      );
      expect(await ids({ status: 'submitted' })).to.deep.equal([adas[0]!.id]);
      expect(await ids({ status: 'blocked' })).to.deep.equal([adas[1]!.id]);
      expect(await ids({ status: 'pending' })).to.deep.equal(expectIds(adas.slice(2)));
      expect(await ids({ target_type: 'Campaign', target_id: campaign })).to.deep.equal(
        expectIds(adas.filter((r) => r.target.type === 'Campaign')),
      );
      expect(await ids({ target_type: 'Listing', target_id: campaign })).to.deep.equal([]);
      expect(
        await ids({ target_type: 'Campaign', target_id: ` ${campaign.toUpperCase()}` }),
        'ids are matched as admission stored them',
      ).to.deep.equal(expectIds(adas.filter((r) => r.target.type === 'Campaign')));
      expect(await ids({ operation: 'archive' })).to.deep.equal(expectIds(adas.filter((r) => r.action === 'archive')));
      expect(await ids({ idempotency_key: 'price-run-1' })).to.deep.equal(
        expectIds(adas.filter((r) => r.key === 'price-run-1')),
      );
      expect(await ids({ idempotency_key: 'price-run-1' }, bob)).to.deep.equal([bobsReceipt]);
    });

    it('refuses target_id without target_type, a foreign account, a bad enum, a limit over 100 and a forged cursor', async () => {
      const error = async (args: Record<string, unknown>) =>
        (await call(ada, 'list_mutations', args)).structuredContent;
      expect(await error({ target_id: listing })).to.include({ code: 'invalid', argument: 'target_id' });
      expect((await error({ account: accounts.bobs })).code).to.equal('account_not_found');
      expect(await error({ status: 'done' })).to.include({ code: 'invalid', argument: 'status' });
      expect(await error({ target_type: 'Keyword' })).to.include({ code: 'invalid', argument: 'target_type' });
      expect(await error({ limit: 101 })).to.include({ code: 'invalid', argument: 'limit' });
      expect((await error({ cursor: 'forged' })).code).to.equal('invalid_cursor');
      expect((await error({ since: '2026-01-01' })).code).to.equal('unknown_argument');
    });
  });

  describe('get_mutation_schema', () => {
    const schemaOf = async (target_type: string, action: string) =>
      (await call(ada, 'get_mutation_schema', { target_type, action })).structuredContent;

    it('Listing update: productType and a non-empty array of op/path/value patches', async () => {
      const res = await schemaOf('Listing', 'update');
      expect(res.schema.required).to.have.members(['productType', 'patches']);
      expect(res.schema.properties.patches).to.include({ type: 'array', minItems: 1 });
      expect(res.schema.properties.patches.items.required).to.have.members(['op', 'path', 'value']);
      expect(res.schema.properties.patches.items.properties.op.enum).to.have.members([
        'add',
        'replace',
        'merge',
        'delete',
      ]);
      expect(res.derived).to.deep.equal([]);
    });

    it('Sponsored Products payloads use the keys of the synced entities; derived ids are optional', async () => {
      const campaignUpdate = await schemaOf('Campaign', 'update');
      expect(campaignUpdate.schema.properties).to.include.keys(
        'name',
        'state',
        'budget',
        'startDate',
        'endDate',
        'dynamicBidding',
      );
      expect(campaignUpdate.schema.required ?? []).not.to.include('campaignId');
      expect(campaignUpdate.money).to.equal('major units of the profile currency');
      const create = await schemaOf('AdvertisingProfile', 'create_campaign');
      expect(create.schema.required).to.have.members(['name', 'targetingType', 'state', 'budget']);
      expect(create.derived).to.have.members(['adProduct', 'marketplaceScope', 'countries']);
      const adGroup = await schemaOf('Campaign', 'create_ad_group');
      expect(adGroup.schema.required).to.have.members(['name', 'state', 'defaultBid']);
      expect(adGroup.derived).to.have.members(['adProduct', 'campaignId']);
      const target = await schemaOf('AdGroup', 'create_target');
      expect(target.schema.required).to.have.members(['targetType', 'negative', 'state', 'targetDetails']);
      expect(target.schema.properties.bid.properties.bid.type).to.equal('number');
      const exclusion = await schemaOf('Campaign', 'create_target');
      expect(exclusion.schema.properties.negative).to.deep.include({ const: true });
      expect(exclusion.schema.properties).not.to.have.property('bid');
      expect(exclusion.schema.properties).not.to.have.property('adGroupId');
    });

    it('archive takes an empty object', async () => {
      for (const t of ['Campaign', 'AdGroup', 'Ad', 'Target']) {
        const res = await schemaOf(t, 'archive');
        expect(res.schema, t).to.deep.include({ type: 'object', properties: {}, additionalProperties: false });
      }
    });

    it('every combination the table of spec 4.8 allows answers a schema; every other one is invalid, naming both', async () => {
      const allowed: Record<string, string[]> = {
        Listing: ['update'],
        AdvertisingProfile: ['create_campaign'],
        Campaign: ['update', 'archive', 'create_ad_group', 'create_target'],
        AdGroup: ['update', 'archive', 'create_ad', 'create_target'],
        Ad: ['update', 'archive'],
        Target: ['update', 'archive'],
        SellingPartner: [],
        Advertiser: [],
      };
      expect(Object.keys(allowed)).to.have.members([...TARGET_TYPES]);
      for (const t of TARGET_TYPES) {
        for (const a of ACTIONS) {
          const res = await call(ada, 'get_mutation_schema', { target_type: t, action: a });
          if (allowed[t]!.includes(a)) {
            expect(res.isError, `${t} ${a}`).to.not.equal(true);
            expect(res.structuredContent.schema.type, `${t} ${a}`).to.equal('object');
          } else {
            expect(res.structuredContent, `${t} ${a}`).to.include({ code: 'invalid', argument: 'action' });
            expect(res.structuredContent.detail).to.contain(t).and.to.contain(a);
            expect(res.structuredContent.allowed_actions).to.deep.equal(allowed[t]);
          }
        }
      }
    });

    it('an unknown target type or action is invalid', async () => {
      expect(
        (await call(ada, 'get_mutation_schema', { target_type: 'Keyword', action: 'update' })).structuredContent,
      ).to.include({ code: 'invalid', argument: 'target_type' });
      expect(
        (await call(ada, 'get_mutation_schema', { target_type: 'Campaign', action: 'delete' })).structuredContent,
      ).to.include({ code: 'invalid', argument: 'action' });
    });

    it('the schema shown is the one admission validates with', async () => {
      // a payload the shown JSON Schema accepts is admitted; one with a key it doesn't list is refused
      const shown = (await schemaOf('AdGroup', 'update')).schema;
      expect(shown.additionalProperties).to.equal(false);
      expect(PAYLOADS.AdGroup!.update!.safeParse({ defaultBid: 0.8, state: 'PAUSED' }).success).to.equal(true);
      expect(PAYLOADS.AdGroup!.update!.safeParse({ bid: 0.8 }).success).to.equal(false);
      expect(Object.keys(shown.properties)).to.have.members([
        'adGroupId',
        'campaignId',
        'adProduct',
        'name',
        'state',
        'defaultBid',
      ]);
    });
  });

  // last: it adds a receipt of Ada's that the listings above do not expect
  describe('read your own write', () => {
    it('get_mutation waits for the read model to show a receipt the log has; another user gets not_found at once', async () => {
      await projector.stop();
      const id = await admit(accounts.north, { type: 'Campaign', id: campaign }, 'archive', {});
      const foreign = await call(bob, 'get_mutation', { id });
      expect(foreign.structuredContent, "not projected, and not Bob's").to.include({ code: 'not_found' });
      projector = new Projector(db, store, [mutationsProjection], { pollMs: 50 });
      const restart = setTimeout(() => projector.start(), 300);
      try {
        const res = await call(ada, 'get_mutation', { id });
        expect(res.isError, JSON.stringify(res.structuredContent)).to.not.equal(true);
        expect(res.structuredContent).to.include({ id, status: 'queued' });
      } finally {
        clearTimeout(restart);
      }
    });
  });
});
