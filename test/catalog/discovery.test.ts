import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { acquireCatalog, ensureCatalog, FIXTURE_SOURCE, readCatalog } from '../../src/catalog/acquire.js';
import { coverage, currentRevision, revisionInfo } from '../../src/catalog/queries.js';
import { REVIEWED } from '../../src/catalog/reviewed.js';
import { call } from '../support/mcp.js';
import { startWorld, type World } from '../support/query-world.js';

// The operation catalog end to end: acquire from our fixture documents (idempotent, source gaps
// recorded, coverage computed from what was read), then search_amazon_operations and
// get_amazon_operation through the MCP client, the catalog resource and its parts, and
// stale_revision once another revision is selected.

type Row = Record<string, any>;
const CAMPAIGNS_LIST = 'ads_api:sponsored-products:3.0:ListSponsoredProductsCampaigns';
const CAMPAIGNS_CREATE = 'ads_api:sponsored-products:3.0:CreateSponsoredProductsCampaigns';
const CATALOG_ITEM = 'sp_api:catalog-items:2022-04-01:getCatalogItem';
const CREATE_REPORT = 'sp_api:reports:2021-06-30:createReport';
const BUYER_INFO = 'sp_api:orders:v0:getOrderBuyerInfo';

describe('operation catalog discovery', function () {
  this.timeout(60_000);
  let world: World;
  let ada: Client;
  let demo: Client;
  let revision: string;

  const ok = async (client: Client, tool: string, args: Row) => {
    const result = await call(client, tool, args);
    expect(result.isError, JSON.stringify(result.structuredContent)).to.not.equal(true);
    return result.structuredContent as Row;
  };
  const refused = async (client: Client, tool: string, args: Row) => {
    const result = await call(client, tool, args);
    expect(result.isError, JSON.stringify(result.structuredContent)).to.equal(true);
    return result.structuredContent as Row;
  };
  const search = (args: Row, client = ada) => ok(client, 'search_amazon_operations', args);
  const get = (args: Row, client = ada) => ok(client, 'get_amazon_operation', args);

  before(async () => {
    world = await startWorld();
    ({ revision } = (await acquireCatalog(world.db)).catalog);
    ada = await world.connect('/mcp', world.tokens.a);
    demo = await world.connect('/demo/mcp');
  });
  after(async () => {
    // leave the fixture revision selected for the files that follow in this process
    if (world) await acquireCatalog(world.db);
    await world?.close();
  });

  describe('acquire', () => {
    it('gives the same revision for the same documents, and storing it again changes nothing', async () => {
      const before = await world.db.withSchema('catalog').table('operations').count({ n: '*' }).first();
      const again = await acquireCatalog(world.db);
      expect(again.catalog.revision).to.equal(revision);
      expect(again.stored).to.equal(false);
      expect(await currentRevision(world.db)).to.equal(revision);
      const after = await world.db.withSchema('catalog').table('operations').count({ n: '*' }).first();
      expect(after).to.deep.equal(before);
      expect(Number(after!.n)).to.equal(again.catalog.operations.length);
    });

    it('at service start fills an empty catalog from the fixture documents, and keeps one already acquired', async () => {
      expect(await ensureCatalog(world.db)).to.equal(null);
      await world.db.withSchema('catalog').table('selected').delete();
      expect(await currentRevision(world.db)).to.equal(null);
      expect(await ensureCatalog(world.db)).to.equal(revision);
      expect(await currentRevision(world.db)).to.equal(revision);
    });

    it('records the malformed and the contract-less document as source gaps and catalogs the rest', async () => {
      const info = await revisionInfo(world.db, revision);
      expect(info!.documents).to.equal(13);
      expect(info!.gaps.map((g) => [g.document, g.kind, g.family])).to.have.deep.members([
        ['ads-api/specs/DspTargeting_prod_3p.json', 'malformed', 'dsp-targeting'],
        ['ads-api/specs/Profiles_prod_3p.json', 'no_contract', 'profiles'],
      ]);
      // every reviewed operation is in the fixture catalog
      for (const r of REVIEWED) expect((await get({ operation: r.key })).bindings.review, r.key).to.equal(r.kind);
    });

    it('computes coverage from what was read: a family left out lowers its counts', async () => {
      const fixture = await coverage(world.db, revision);
      expect(fixture.find((c) => c.provider === 'sp_api')).to.include({ live_read: 5, queued: 2, automation: 2 });
      expect(fixture.find((c) => c.provider === 'ads_api')).to.include({ live_read: 6, queued: 14, automation: 14 });
      const ops = (await search({ provider: 'sp_api', limit: 100 })).total;
      expect(fixture.find((c) => c.provider === 'sp_api')).to.include({ acquired: ops, schema: ops, ingested: 0 });

      const folder = await mkdtemp(join(tmpdir(), 'catalog-'));
      try {
        await cp(FIXTURE_SOURCE, folder, { recursive: true });
        await rm(join(folder, 'selling-api/models/sellers-api-model'), { recursive: true });
        const { catalog } = await acquireCatalog(world.db, { from: folder });
        expect(catalog.revision).to.not.equal(revision);
        const less = await coverage(world.db, catalog.revision);
        expect(less.find((c) => c.provider === 'sp_api')).to.include({ acquired: ops - 1, live_read: 4 });
      } finally {
        await rm(folder, { recursive: true });
        await acquireCatalog(world.db);
      }
      expect(await currentRevision(world.db)).to.equal(revision);
    });

    it('records a document whose references do not resolve, and an operation declared twice, as gaps', async () => {
      const folder = await mkdtemp(join(tmpdir(), 'catalog-'));
      const doc = (refTo: string) => ({
        openapi: '3.0.1',
        info: { title: 'Gap Check', version: '1.0' },
        paths: {
          '/things': {
            get: {
              operationId: 'listThings',
              responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: refTo } } } } },
            },
            post: { operationId: 'listThings', responses: { '204': { description: 'none' } } },
          },
        },
        components: { schemas: { Thing: { type: 'object' } } },
      });
      try {
        await writeFile(
          join(folder, 'Dangling.json'),
          JSON.stringify({ ...doc('#/components/schemas/Missing'), info: { title: 'Dangling', version: '1.0' } }),
        );
        await writeFile(join(folder, 'Twice.json'), JSON.stringify(doc('#/components/schemas/Thing')));
        const read = await readCatalog({ from: folder });
        expect(read.gaps.map((g) => [g.document, g.kind, g.family])).to.have.deep.members([
          ['Dangling.json', 'unresolvable_refs', 'dangling'],
          ['Twice.json', 'duplicate_operation', 'gap-check'],
        ]);
        expect(read.operations.map((o) => [o.key, o.method])).to.deep.equal([
          ['ads_api:gap-check:1.0:listThings', 'GET'],
        ]);
      } finally {
        await rm(folder, { recursive: true });
      }
    });
  });

  describe('search_amazon_operations', () => {
    it('is listed on both endpoints, read-only', async () => {
      for (const client of [ada, demo]) {
        const tools = (await client.listTools()).tools.map((t) => t.name);
        expect(tools).to.include.members(['search_amazon_operations', 'get_amazon_operation']);
      }
      const tool = (await ada.listTools()).tools.find((t) => t.name === 'search_amazon_operations')!;
      expect(tool.annotations).to.include({ readOnlyHint: true, destructiveHint: false });
    });

    it('needs every query word to match, in any order and case, part of a word being enough', async () => {
      const both = await search({ query: 'CAMPAIGNS list' });
      expect(both.operations.map((o: Row) => o.operation)).to.deep.equal([CAMPAIGNS_LIST]);
      expect(both.operations[0]).to.deep.equal({
        operation: CAMPAIGNS_LIST,
        provider: 'ads_api',
        family: 'sponsored-products',
        method: 'POST',
        path: '/sp/campaigns/list',
        summary: 'Lists Sponsored Products campaigns.',
        executable: true,
        deprecated: false,
      });
      expect(both).to.include({ total: 1, family_count: 1, next_offset: null, catalog_revision: revision });
      expect((await search({ query: 'campaigns list nothing-like-this' })).total).to.equal(0);
      const one = await search({ query: 'campaign' });
      expect(one.total).to.be.greaterThan(both.total);
      for (const o of one.operations) expect(JSON.stringify(o).toLowerCase()).to.contain('campaign');
    });

    it('filters by provider, family, method, deprecated and executable, and counts the matching families', async () => {
      const writes = await search({ provider: 'ads_api', method: 'PUT' });
      expect(writes.operations.every((o: Row) => o.method === 'PUT' && o.provider === 'ads_api')).to.equal(true);
      expect(writes.total).to.equal(5);
      const reports = await search({ family: 'reports' });
      expect(reports.families).to.deep.equal([{ provider: 'sp_api', family: 'reports', count: reports.total }]);
      const deprecated = await search({ deprecated: true });
      expect(deprecated.operations.map((o: Row) => o.operation)).to.have.members([
        'sp_api:fba-inventory:v1:createInventoryItem',
        'ads_api:sponsored-products:3.0:getBudgetRecommendations',
      ]);
      const executable = await search({ executable: true, limit: 100 });
      expect(executable.operations.map((o: Row) => o.operation)).to.have.members(REVIEWED.map((r) => r.key));
      const generic = await search({ executable: false, query: 'orders' });
      expect(generic.operations.map((o: Row) => o.operation)).to.include(BUYER_INFO);
      expect(generic.operations.every((o: Row) => o.executable === false)).to.equal(true);
      const all = await search({ limit: 1 });
      expect(all.family_count).to.equal(all.families.length);
      expect(all.families.reduce((n: number, f: Row) => n + f.count, 0)).to.equal(all.total);
    });

    it('pages with offset and next_offset: every row once, null after the last', async () => {
      const seen: string[] = [];
      let offset: number | null = 0;
      let pages = 0;
      while (offset !== null) {
        const page: Row = await search({ executable: true, limit: 10, offset });
        seen.push(...page.operations.map((o: Row) => o.operation));
        offset = page.next_offset;
        pages += 1;
      }
      expect(pages).to.equal(3);
      expect(seen).to.have.length(REVIEWED.length);
      expect(new Set(seen).size).to.equal(REVIEWED.length);
      expect(seen).to.deep.equal([...seen].sort());
      expect((await search({})).operations).to.have.length(25);
    });

    it('refuses a limit over 100, an unknown method and an unknown argument', async () => {
      expect(await refused(ada, 'search_amazon_operations', { limit: 101 })).to.include({ code: 'invalid' });
      expect(await refused(ada, 'search_amazon_operations', { method: 'HEAD' })).to.include({ code: 'invalid' });
      expect(await refused(ada, 'search_amazon_operations', { revision })).to.include({ code: 'unknown_argument' });
    });
  });

  describe('get_amazon_operation', () => {
    it('shows a request: parameters outside the body, the body schema, bindings and coverage', async () => {
      const op = await get({ operation: CREATE_REPORT });
      expect(op).to.include({
        operation: CREATE_REPORT,
        method: 'POST',
        path: '/reports/2021-06-30/reports',
        deprecated: false,
        direction: 'request',
        media_type: 'application/json',
        body_required: true,
        catalog_revision: revision,
      });
      expect(op.schema_digest).to.match(/^[0-9a-f]{64}$/);
      expect(op.parameters).to.deep.equal([]);
      expect(op.schema.required).to.deep.equal(['reportType', 'marketplaceIds']);
      expect(op.bindings).to.deep.include({
        review: 'report',
        executable: true,
        tool: 'request_report',
        target_type: 'SellingPartner',
        reason: null,
      });
      // user a: a seller and a vendor account, both with a selling connection and no ads one
      expect(op.bindings.accounts.map((a: Row) => [a.account_id, a.connected])).to.have.deep.members([
        [world.accounts.a1, true],
        [world.accounts.a2, true],
      ]);
      const ads = await get({
        operation: CAMPAIGNS_CREATE,
        account: world.accounts.a1,
        media_type: 'application/vnd.spCampaign.v3+json',
      });
      expect(ads.bindings.accounts).to.deep.equal([
        { account_id: world.accounts.a1, account_name: 'North', connected: false },
      ]);
      expect(ads.bindings).to.include({ review: 'queued_write', tool: 'queue_mutations', action: 'create_campaign' });
      expect(op.coverage).to.deep.equal({
        schema: true,
        live_read: false,
        queued: true,
        automation: true,
        ingested: false,
      });
    });

    it('shows a response by status, with its media type named when several are declared', async () => {
      const needs = await refused(ada, 'get_amazon_operation', {
        operation: CAMPAIGNS_LIST,
        direction: 'response',
        status: 200,
      });
      expect(needs).to.include({ code: 'invalid', argument: 'media_type' });
      expect(needs.detail).to.contain('application/vnd.spCampaign.v3+json').and.to.contain('application/json');
      const op = await get({
        operation: CAMPAIGNS_LIST,
        direction: 'response',
        status: 200,
        media_type: 'application/json',
      });
      expect(op).to.include({ status: '200', media_type: 'application/json', parameters: null });
      expect(op.media_types).to.have.members(['application/json', 'application/vnd.spCampaign.v3+json']);
      expect(op.schema.properties.campaigns.items.required).to.include('campaignId');
      // a status class matches its declared class, a 429 the declared 429
      expect((await get({ operation: CATALOG_ITEM, direction: 'response', status: '429' })).status).to.equal('429');
      expect(await refused(ada, 'get_amazon_operation', { operation: CATALOG_ITEM, direction: 'response' })).to.include(
        {
          code: 'invalid',
          argument: 'status',
        },
      );
      const missing = await refused(ada, 'get_amazon_operation', {
        operation: CATALOG_ITEM,
        direction: 'response',
        status: 201,
      });
      expect(missing).to.include({ code: 'invalid', argument: 'status' });
      expect(missing.detail).to.contain('200');
      expect(await refused(ada, 'get_amazon_operation', { operation: CATALOG_ITEM, status: 200 })).to.include({
        code: 'invalid',
        argument: 'status',
      });
    });

    it('prunes examples and shows a recursive reference as a resource that reads its target', async () => {
      const op = await get({ operation: CATALOG_ITEM, direction: 'response', status: 200 });
      expect(JSON.stringify(op.schema)).to.not.contain('example');
      const classification = op.schema.properties.classifications.items;
      expect(classification.required).to.deep.equal(['displayName', 'classificationId']);
      const parent = classification.properties.parent;
      expect(parent.$ref).to.equal('#/definitions/ItemClassification');
      expect(parent.resource).to.match(
        new RegExp(`^resource://service/amazon-catalog/${revision}/parts/[0-9a-f]{64}$`),
      );
      const read = await ada.readResource({ uri: parent.resource });
      const target = JSON.parse((read.contents[0] as { text: string }).text);
      expect(target.properties.parent).to.deep.equal(parent);
      expect(target.required).to.deep.equal(['displayName', 'classificationId']);
    });

    it('says why an operation does not run: restricted, or generic', async () => {
      const restricted = await get({ operation: BUYER_INFO }, demo);
      expect(restricted.bindings).to.include({
        review: 'restricted',
        executable: false,
        tool: null,
        reason: 'restricted_data_disabled',
      });
      const generic = await get({ operation: 'sp_api:orders:v0:getOrders' });
      expect(generic.bindings).to.include({ review: null, executable: false, reason: 'adapter_missing' });
    });

    it('answers not_found for a key it does not catalog, invalid for a malformed one, account_not_found for a foreign account', async () => {
      expect(await refused(ada, 'get_amazon_operation', { operation: 'sp_api:orders:v0:noSuchOperation' })).to.include({
        code: 'not_found',
      });
      expect(await refused(ada, 'get_amazon_operation', { operation: 'orders:getOrders' })).to.include({
        code: 'invalid',
        argument: 'operation',
      });
      expect(
        await refused(ada, 'get_amazon_operation', { operation: CREATE_REPORT, account: world.accounts.b1 }),
      ).to.include({ code: 'account_not_found' });
    });
  });

  describe('the catalog resource', () => {
    it('lists the revision, coverage, source gaps, families and the reviewed and restricted operations', async () => {
      const listed = await ada.listResources();
      expect(listed.resources.map((r) => r.uri)).to.include('resource://service/amazon-catalog');
      const templates = await ada.listResourceTemplates();
      expect(templates.resourceTemplates.map((t) => t.uriTemplate)).to.include(
        'resource://service/amazon-catalog/{revision}/parts/{part}',
      );
      const read = await demo.readResource({ uri: 'resource://service/amazon-catalog' });
      const body = JSON.parse((read.contents[0] as { text: string }).text);
      expect(body.catalog_revision).to.equal(revision);
      expect(body.coverage).to.deep.equal(JSON.parse(JSON.stringify(await coverage(world.db, revision))));
      expect(body.source_gaps).to.have.length(2);
      expect(body.families).to.deep.include({
        provider: 'sp_api',
        family: 'catalog-items',
        versions: ['2022-04-01'],
        operations: 2,
      });
      expect(body.reviewed).to.have.length(27);
      expect(body.restricted.map((r: Row) => r.operation)).to.include(BUYER_INFO);
    });
  });

  describe('oversized parts and stale revisions', () => {
    let small: string;
    before(async () => {
      // the same documents with a small inline size: larger schema parts are kept aside
      small = (await acquireCatalog(world.db, { inlineBytes: 600 })).catalog.revision;
    });
    after(async () => {
      await acquireCatalog(world.db);
    });

    it('shows a part over the inline size as { oversized: true, resource }, and the resource holds it', async () => {
      const op = await get({ operation: CAMPAIGNS_CREATE, media_type: 'application/vnd.spCampaign.v3+json' });
      expect(op.catalog_revision).to.equal(small);
      const stubs: Row[] = [];
      const walk = (v: unknown) => {
        if (!v || typeof v !== 'object') return;
        if ((v as Row).oversized === true) stubs.push(v as Row);
        else Object.values(v).forEach(walk);
      };
      walk(op.schema);
      expect(stubs.length).to.be.greaterThan(0);
      for (const stub of stubs) {
        expect(stub.resource).to.match(new RegExp(`^resource://service/amazon-catalog/${small}/parts/[0-9a-f]{64}$`));
        const part = JSON.parse(
          ((await ada.readResource({ uri: stub.resource })).contents[0] as { text: string }).text,
        );
        expect(JSON.stringify(part).length).to.be.greaterThan(0);
        expect(stub.bytes).to.be.a('number').greaterThan(0);
      }
      expect(JSON.stringify(op.schema).length).to.be.lessThan(2000);
    });

    it('answers stale_revision with current_revision for a revision no longer selected, in a key and in a part URI', async () => {
      const stale = await refused(ada, 'get_amazon_operation', { operation: `${CREATE_REPORT}@${revision}` });
      expect(stale).to.include({ code: 'stale_revision', current_revision: small, argument: 'operation' });
      const current = await get({ operation: `${CREATE_REPORT}@${small}` });
      expect(current.catalog_revision).to.equal(small);
      const never = await refused(ada, 'get_amazon_operation', { operation: `${CREATE_REPORT}@${'0'.repeat(64)}` });
      expect(never).to.include({ code: 'invalid' });

      const part = (await world.db.withSchema('catalog').table('parts').first('digest')).digest as string;
      const err = await ada.readResource({ uri: `resource://service/amazon-catalog/${revision}/parts/${part}` }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(McpError);
      expect((err as McpError).data).to.deep.include({ code: 'stale_revision', current_revision: small });
    });
  });
});
