import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { newId } from '../../src/domain/shared/ids.js';
import { createLwaClient } from '../../src/marketplace/clients/index.js';
import { DEFAULT_LWA_CLIENT } from '../../src/marketplace/simulator/index.js';
import {
  clientsFor,
  injectFault,
  QUICK_RETRY,
  requestsTo,
  resetSimulator,
  SELLING_TOKEN,
} from '../support/marketplace.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import { startHarness, type Harness } from '../support/observed.js';

// get_product_type_schema over MCP against the simulator's Product Type Definitions API:
// what it serves, the 24-hour cache (by the simulator's request log), the error codes, and
// its absence from the demo endpoint.

const US = 'ATVPDKIKX0DER';
const JP = 'A1VC38T7YXB528';
const DAY_MS = 86_400_000;
type Row = Record<string, any>;

describe('get_product_type_schema', function () {
  this.timeout(60_000);
  let h: Harness;
  let mcp: McpServing;
  let client: Client;
  let account: string;
  let base: string;
  const clock = { ms: Date.parse('2026-03-10T09:00:00Z') };
  const definitionPath = (productType: string) => `/definitions/2020-09-01/productTypes/${productType}`;
  const schemaOf = async (args: Record<string, unknown>, c: Client = client) => {
    const result = await call(c, 'get_product_type_schema', args);
    expect(result.isError, JSON.stringify(result.structuredContent)).to.equal(undefined);
    return result.structuredContent as Row;
  };
  const errorOf = async (args: Record<string, unknown>, c: Client = client) => {
    const result = await call(c, 'get_product_type_schema', args);
    expect(result.isError, JSON.stringify(result.structuredContent)).to.equal(true);
    return result.structuredContent as { code: string; detail: string };
  };
  /** the simulator's own answer: the definition, and the document its link serves */
  const simulatorDefinition = async (productType: string, marketplaceId: string) => {
    const definition = await clientsFor(h.simulator).selling.definitions.getDefinitionsProductType(
      productType,
      marketplaceId,
    );
    const document = (await (await fetch(definition.schema.link.resource)).json()) as Row;
    return { definition, document };
  };

  before(async () => {
    h = await startHarness([], [], clock.ms);
    base = h.simulator.endpoints().sellingApiUrl;
    const user = newId();
    account = await h.connect('seller', user);
    const endpoints = h.simulator.endpoints();
    mcp = await serveMcp(h.db, () => new Date(clock.ms), newId(), {
      marketplace: {
        sellingApiUrl: endpoints.sellingApiUrl,
        lwa: createLwaClient({ tokenUrl: endpoints.lwaTokenUrl, ...DEFAULT_LWA_CLIENT }),
        sellingRefreshToken: SELLING_TOKEN,
        retry: QUICK_RETRY,
      },
    });
    client = await mcp.clientFor(user);
  });
  beforeEach(() => resetSimulator(base));
  after(async () => {
    await mcp?.close();
    await h?.close();
  });

  it("serves the product type's full JSON Schema with the definition's meta, for the account's first marketplace by default", async () => {
    const status = await call(client, 'connection_status');
    const first = (status.structuredContent.accounts as Row[])[0]!.selling.marketplaces.find(
      (m: Row) => m.participating,
    ).marketplace_id;
    const got = await schemaOf({ product_type: 'luggage' });
    const { definition, document } = await simulatorDefinition('LUGGAGE', first);
    expect(got).to.deep.equal({
      product_type: 'LUGGAGE',
      marketplace_id: first,
      account_id: account,
      display_name: definition.displayName,
      locale: definition.locale,
      requirements: 'LISTING',
      requirements_enforced: definition.requirementsEnforced,
      version: definition.productTypeVersion,
      property_groups: definition.propertyGroups,
      checksum: definition.schema.checksum,
      fetched_at: new Date(clock.ms).toISOString(),
      expires_at: new Date(clock.ms + DAY_MS).toISOString(),
      schema: document,
    });
    // the provider's attribute shape, with this marketplace's selectors
    const offer = got.schema.properties.purchasable_offer;
    expect(offer.selectors).to.deep.equal(['marketplace_id', 'currency', 'audience']);
    expect(offer.items.properties).to.include.keys(
      'our_price',
      'minimum_seller_allowed_price',
      'maximum_seller_allowed_price',
      'audience',
    );
    expect(offer.items.properties.our_price.items.properties.schedule.items.properties).to.have.key('value_with_tax');
    expect(got.schema.properties).to.include.keys(
      'fulfillment_availability',
      'item_name',
      'condition_type',
      'merchant_shipping_group',
      'list_price',
      'material',
    );
    expect(got.schema.required).to.include.members(['item_name', 'color', 'material']);

    const yen = await schemaOf({ product_type: 'PRODUCT', marketplace_id: JP, account });
    expect(yen.marketplace_id).to.equal(JP);
    expect(yen.schema).to.deep.equal((await simulatorDefinition('PRODUCT', JP)).document);
    const yenOffer = yen.schema.properties.purchasable_offer.items.properties;
    expect(yenOffer.currency.enum).to.deep.equal(['JPY']);
    expect(yenOffer.our_price.items.properties.schedule.items.properties.value_with_tax.multipleOf).to.equal(1);
  });

  it('caches each (product type, marketplace) for 24 hours of the service clock', async () => {
    const requests = async () => ({
      definitions: (await requestsTo(base, 'GET', definitionPath('KITCHEN'))).length,
      documents: (
        (await fetch(`${base}/_sim/requests?method=GET`).then((r) => r.json())) as { requests: Row[] }
      ).requests.filter((r) => r.path.includes('/KITCHEN/')).length,
    });
    const start = clock.ms;
    try {
      const first = await schemaOf({ product_type: 'KITCHEN', marketplace_id: US });
      expect(await requests()).to.deep.equal({ definitions: 1, documents: 1 });
      clock.ms = start + DAY_MS - 1;
      expect(await schemaOf({ product_type: 'KITCHEN', marketplace_id: US })).to.deep.equal(first);
      expect(await requests(), 'a repeated call within 24 hours does not reach the marketplace').to.deep.equal({
        definitions: 1,
        documents: 1,
      });
      // another marketplace is another entry
      await schemaOf({ product_type: 'KITCHEN', marketplace_id: JP });
      expect(await requests()).to.deep.equal({ definitions: 2, documents: 2 });
      clock.ms = start + DAY_MS;
      const again = await schemaOf({ product_type: 'KITCHEN', marketplace_id: US });
      expect(await requests(), 'an expired entry is fetched again').to.deep.equal({ definitions: 3, documents: 3 });
      expect(again.fetched_at).to.equal(new Date(start + DAY_MS).toISOString());
      expect(again.schema).to.deep.equal(first.schema);
      await schemaOf({ product_type: 'KITCHEN', marketplace_id: US });
      expect(await requests()).to.deep.equal({ definitions: 3, documents: 3 });
    } finally {
      clock.ms = start;
    }
  });

  it('not_found: no definition for that product type, or not in that marketplace', async () => {
    const unknown = await errorOf({ product_type: 'NO_SUCH_TYPE', marketplace_id: US });
    expect(unknown.code).to.equal('not_found');
    expect(unknown.detail).to.include('NO_SUCH_TYPE');
    expect((await requestsTo(base, 'GET', definitionPath('NO_SUCH_TYPE')))[0]!.status).to.equal(404);
    expect((await errorOf({ product_type: 'SHIRT', marketplace_id: JP })).code).to.equal('not_found');
    expect((await schemaOf({ product_type: 'SHIRT', marketplace_id: US })).schema.properties).to.include.keys(
      'size',
      'department',
    );
  });

  it('amazon_error when the marketplace refuses; schema_unavailable on server errors, for the definition or its document; nothing cached', async () => {
    await injectFault(base, { route: `GET ${definitionPath('OFFICE_PRODUCTS')}`, kind: 'reject', status: 400 });
    expect((await errorOf({ product_type: 'OFFICE_PRODUCTS', marketplace_id: US })).code).to.equal('amazon_error');

    await injectFault(base, {
      route: `GET ${definitionPath('OFFICE_PRODUCTS')}`,
      kind: '5xx',
      status: 503,
      times: QUICK_RETRY.attempts!,
    });
    expect((await errorOf({ product_type: 'OFFICE_PRODUCTS', marketplace_id: US })).code).to.equal(
      'schema_unavailable',
    );
    expect((await requestsTo(base, 'GET', definitionPath('OFFICE_PRODUCTS'))).map((r) => r.status)).to.deep.equal([
      400,
      ...Array(QUICK_RETRY.attempts).fill(503),
    ]);

    await injectFault(base, { route: 'GET /_schemas/**', kind: '5xx', times: QUICK_RETRY.attempts! });
    expect((await errorOf({ product_type: 'OFFICE_PRODUCTS', marketplace_id: US })).code).to.equal(
      'schema_unavailable',
    );

    // a transient 5xx is retried within the call
    await injectFault(base, { route: `GET ${definitionPath('OFFICE_PRODUCTS')}`, kind: '5xx', times: 1 });
    expect((await schemaOf({ product_type: 'OFFICE_PRODUCTS', marketplace_id: US })).product_type).to.equal(
      'OFFICE_PRODUCTS',
    );
  });

  it('rejects bad arguments; not_connected for a vendor account', async () => {
    expect((await errorOf({})).code).to.equal('invalid');
    expect((await errorOf({ product_type: 'bad type!' })).code).to.equal('invalid');
    expect((await errorOf({ product_type: 'PRODUCT', marketplace_id: 'NOWHERE' })).code).to.equal('invalid');
    expect((await errorOf({ product_type: 'PRODUCT', locale: 'en_US' })).code).to.equal('unknown_argument');
    const vendorUser = newId();
    await h.connect('vendor', vendorUser);
    expect((await errorOf({ product_type: 'PRODUCT' }, await mcp.clientFor(vendorUser))).code).to.equal(
      'not_connected',
    );
    expect(
      (await requestsTo(base, 'GET', definitionPath('PRODUCT'))).length,
      'refused before any marketplace call',
    ).to.equal(0);
  });

  it('is not on the demo endpoint: not listed, and a call is refused', async () => {
    const demo = await mcp.demoClient();
    const names = (await demo.listTools()).tools.map((t) => t.name);
    expect(names).to.not.include('get_product_type_schema');
    expect(names).to.include('connection_status');
    expect((await client.listTools()).tools.map((t) => t.name)).to.include('get_product_type_schema');
    let refused: unknown;
    try {
      await demo.callTool({ name: 'get_product_type_schema', arguments: { product_type: 'PRODUCT' } });
    } catch (err) {
      refused = err;
    }
    expect(String(refused)).to.include('not available on the demo endpoint');
    expect((await requestsTo(base, 'GET', definitionPath('PRODUCT'))).length).to.equal(0);
  });

  it('the simulator searches product types per marketplace (searchDefinitionsProductTypes)', async () => {
    const { selling } = clientsFor(h.simulator);
    const luggage = await selling.definitions.searchDefinitionsProductTypes(US, { keywords: ['lugg'] });
    expect(luggage.productTypes).to.deep.equal([{ name: 'LUGGAGE', displayName: 'Luggage', marketplaceIds: [US] }]);
    const us = (await selling.definitions.searchDefinitionsProductTypes(US)).productTypes.map((p) => p.name);
    const jp = (await selling.definitions.searchDefinitionsProductTypes(JP)).productTypes.map((p) => p.name);
    expect(us).to.include.members(['PRODUCT', 'LUGGAGE', 'SHIRT']);
    expect(jp).to.include('PRODUCT').and.not.include('SHIRT');
    // every product type the catalog lists under has a definition
    for (const l of h.simulator.catalog.listingsIn(US)) expect(us).to.include(l.productType);
  });
});
