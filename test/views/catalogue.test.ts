import { expect } from 'chai';
import { viewCatalogue } from '../../src/projections/views/catalogue.js';
import { SHARED_COLUMNS, SHARED_WARNINGS } from '../../src/projections/views/shared.js';

// The views' catalogues are JSON read through viewCatalogue: shared entries resolve to the one
// statement of them, and a malformed entry is refused when the view's module loads.

const CATALOGUE = {
  name: 'v_listings',
  audience: 'seller',
  grain: 'one row per SKU per marketplace',
  columns: [
    { shared: 'seller_account_id' },
    { name: 'units', type: 'bigint', unit: 'count', nullable: false, description: 'units' },
  ],
  freshness: 'hourly',
  joins: [{ shared: 'v_marketplaces' }, { view: 'v_sales_lines', on: 'sku', fanOut: null }],
  warnings: [{ shared: 'money' }, 'mind the ASINs'],
  dateColumn: null,
};
const withColumn = (column: unknown) => ({ ...CATALOGUE, columns: [column] });

describe('view catalogues', () => {
  it('resolves shared entries and fills a column without a unit with null', () => {
    const view = viewCatalogue({
      ...CATALOGUE,
      columns: [...CATALOGUE.columns, { name: 'sku', type: 'text', nullable: true, description: 'the SKU' }],
    });
    expect(view.columns).to.deep.equal([
      SHARED_COLUMNS.seller_account_id,
      { name: 'units', type: 'bigint', unit: 'count', nullable: false, description: 'units' },
      { name: 'sku', type: 'text', unit: null, nullable: true, description: 'the SKU' },
    ]);
    expect(view.joins[0]).to.deep.equal({ view: 'v_marketplaces', on: 'marketplace_id', fanOut: null });
    expect(view.warnings).to.deep.equal([SHARED_WARNINGS.money, 'mind the ASINs']);
  });

  it('refuses a malformed entry', () => {
    const malformed: unknown[] = [
      withColumn({ shared: 'no_such_column' }),
      withColumn({ name: 'sku', type: 'text', description: 'nullable is missing' }),
      withColumn({ name: 'sku', type: 'text', nullable: false, description: 'x', nulable: true }),
      { ...CATALOGUE, name: 'v_no_such_view' },
      { ...CATALOGUE, joins: [{ view: 'v_no_such_view', on: 'sku', fanOut: null }] },
      { ...CATALOGUE, warnings: [{ shared: 'no_such_warning' }] },
      { ...CATALOGUE, sql: 'select 1' },
    ];
    for (const json of malformed) expect(() => viewCatalogue(json), JSON.stringify(json)).to.throw();
  });
});
