import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { VIEW_NAMES, type ViewDefinition } from '../../src/projections/views/definition.js';
import { existingViews, viewCoverage } from '../../src/projections/views/queries.js';
import { migrateViews, VIEWS_SCHEMA } from '../../src/projections/views/migrate.js';
import { viewDefinitions } from '../../src/projections/views/registry.js';
import { call } from '../support/mcp.js';
import { startWorld, TEST_VIEWS, type World } from '../support/query-world.js';

// describe_data end to end: the overview, one view in full, unknown and not-yet-available
// views, and coverage per account (through the views, so hidden views read as empty).

describe('describe_data over HTTP', () => {
  let world: World;
  let asA: Client;

  before(async () => {
    world = await startWorld();
    asA = await world.connect('/mcp', world.tokens.a);
  });
  after(async () => world?.close());

  const describeData = (args: Record<string, unknown> = {}) => call(asA, 'describe_data', args);

  it('is listed, read-only, with view, coverage and account arguments', async () => {
    const tool = (await asA.listTools()).tools.find((t) => t.name === 'describe_data')!;
    expect(tool.annotations).to.include({ readOnlyHint: true });
    expect(Object.keys(tool.inputSchema.properties!)).to.have.members(['view', 'coverage', 'account']);
  });

  it("without a view: every registered view's grain and the join graph", async () => {
    const result = await describeData();
    expect(result.isError).to.not.equal(true);
    const { views, joins } = result.structuredContent;
    // registered, and created in this database (a view whose read model isn't migrated here is absent)
    const created = await existingViews(world.db);
    expect(views.map((v: { name: string }) => v.name)).to.deep.equal(
      VIEW_NAMES.filter((n) => viewDefinitions.some((d) => d.name === n) && created.has(n)),
    );
    expect(views).to.deep.include({
      name: 'v_marketplaces',
      audience: 'reference',
      grain: 'one row per marketplace (23 rows)',
      date_column: null,
    });
    expect(joins).to.be.an('array');
    for (const j of joins) expect(j).to.have.keys('from', 'to', 'on', 'fan_out');
  });

  it('with a view: columns with type, unit and nullability, grain, freshness, joins and warnings', async () => {
    const body = (await describeData({ view: 'v_marketplaces' })).structuredContent;
    expect(body).to.include({
      view: 'v_marketplaces',
      audience: 'reference',
      grain: 'one row per marketplace (23 rows)',
      date_column: null,
    });
    expect(body.columns.map((c: { name: string }) => c.name)).to.deep.equal([
      'marketplace_id',
      'name',
      'country_code',
      'domain_name',
      'currency',
    ]);
    expect(body.columns[0]).to.include({ name: 'marketplace_id', type: 'text', unit: null, nullable: false });
    expect(body.columns[0].description).to.contain('ATVPDKIKX0DER');
    expect(body.freshness).to.contain('static');
    expect(body.joins).to.be.an('array');
    expect(body.warnings.join(' ')).to.contain('JPY has no subunit');
  });

  it('answers invalid with the twelve names for an unknown view', async () => {
    const result = await describeData({ view: 'v_secret' });
    expect(result.isError).to.equal(true);
    expect(result.structuredContent).to.include({ code: 'invalid', argument: 'view' });
    expect(result.structuredContent.views).to.deep.equal([...VIEW_NAMES]);
    expect(result.structuredContent.detail).to.contain('v_sales_lines');
  });

  it('answers invalid, listing what is available, for a spec view missing from the database (e.g. mid-migration)', async () => {
    await world.db.raw(`drop view ${VIEWS_SCHEMA}.v_marketplaces`);
    try {
      const result = await describeData({ view: 'v_marketplaces' });
      expect(result.structuredContent).to.include({ code: 'invalid' });
      expect(result.structuredContent.detail).to.contain('v_marketplaces is not available yet');
      expect(result.structuredContent.views).to.be.an('array').that.does.not.include('v_marketplaces');
    } finally {
      await world.db.transaction((trx) => migrateViews(trx, [...viewDefinitions, ...TEST_VIEWS]));
    }
  });

  it('coverage: per account of the caller, whether each view has rows; account narrows, a foreign account is not found', async () => {
    const all = (await describeData({ coverage: true })).structuredContent;
    expect(all.coverage.map((c: { account_id: string }) => c.account_id)).to.have.members([
      world.accounts.a1,
      world.accounts.a2,
    ]);
    for (const c of all.coverage)
      expect(c.views).to.deep.include({ view: 'v_marketplaces', has_rows: true, min_date: null, max_date: null });
    const one = (await describeData({ view: 'v_marketplaces', coverage: true, account: world.accounts.a2 }))
      .structuredContent;
    expect(one.view).to.equal('v_marketplaces');
    expect(one.coverage).to.deep.equal([
      {
        account_id: world.accounts.a2,
        name: 'South',
        entity_type: 'vendor',
        views: [{ view: 'v_marketplaces', has_rows: true, min_date: null, max_date: null }],
      },
    ]);
    expect((await describeData({ coverage: true, account: world.accounts.b1 })).structuredContent.code).to.equal(
      'account_not_found',
    );
  });

  it('coverage of views with dates: the span per account; a seller view is hidden from vendor accounts and the reverse', async () => {
    // the test views, registered for this test only
    viewDefinitions.push(...(TEST_VIEWS as unknown as ViewDefinition[]));
    try {
      const { coverage } = (await describeData({ coverage: true })).structuredContent;
      const of = (account: string) => coverage.find((c: { account_id: string }) => c.account_id === account).views;
      // each account lists its own kind's views only: the seller view for the seller account, the vendor's for the vendor's
      expect(of(world.accounts.a1)).to.deep.include({
        view: 'v_test_lines',
        has_rows: true,
        min_date: '2024-01-01',
        max_date: '2024-12-30',
      });
      expect(of(world.accounts.a1).map((v: { view: string }) => v.view)).to.not.include('v_test_vendor_lines');
      expect(of(world.accounts.a2)).to.deep.include({
        view: 'v_test_vendor_lines',
        has_rows: true,
        min_date: '2024-01-02',
        max_date: '2024-01-11',
      });
      expect(of(world.accounts.a2).map((v: { view: string }) => v.view)).to.not.include('v_test_lines');
      // narrowed to the seller account, the vendor view is not listed at all; with both, both are
      const names = async (args: Record<string, unknown>) =>
        (await describeData(args)).structuredContent.views.map((v: { name: string }) => v.name);
      expect(await names({ account: world.accounts.a1 }))
        .to.include('v_test_lines')
        .and.not.include('v_test_vendor_lines');
      expect(await names({ account: world.accounts.a2 }))
        .to.include('v_test_vendor_lines')
        .and.not.include('v_test_lines');
      expect(await names({})).to.include.members(['v_test_lines', 'v_test_vendor_lines']);
    } finally {
      viewDefinitions.splice(viewDefinitions.length - TEST_VIEWS.length, TEST_VIEWS.length);
    }
    expect(viewDefinitions.map((d) => d.name)).to.not.include('v_test_lines');
  });

  it("answers invalid, naming why, for a view hidden from the account's kind", async () => {
    const vendorView = (await describeData({ view: 'v_vendor_metrics', account: world.accounts.a1 })).structuredContent;
    expect(vendorView).to.include({ code: 'invalid', argument: 'view' });
    expect(vendorView.detail).to.contain('v_vendor_metrics is a vendor view, hidden from seller accounts');
    expect(vendorView.views).to.not.include('v_vendor_metrics');
    const sellerView = (await describeData({ view: 'v_listings', account: world.accounts.a2 })).structuredContent;
    expect(sellerView.detail).to.contain('v_listings is a seller view, hidden from vendor accounts');
  });

  it('viewCoverage reads only through the accounts it is given', async () => {
    const coverage = await viewCoverage(world.db, [world.accounts.b1], TEST_VIEWS as unknown as ViewDefinition[]);
    expect([...coverage.keys()]).to.deep.equal([world.accounts.b1]);
    expect(coverage.get(world.accounts.b1)![0]).to.deep.equal({
      view: 'v_test_lines',
      has_rows: true,
      min_date: '2024-01-02',
      max_date: '2024-02-20',
    });
  });
});
