import type { FastifyInstance } from 'fastify';
import { CATALOG_INCLUDED_DATA } from '../../clients/selling-catalog-types.js';
import { sellingError } from '../api-errors.js';
import { rngFor, type Catalog, type CatalogProduct } from '../catalog.js';
import { MARKETPLACES } from '../marketplaces.js';
import { sellingRoute, type TokenStore } from '../tokens.js';
import { csv, decodeToken, encodeToken } from './page-token.js';

// Catalog Items API 2022-04-01: searchCatalogItems by identifiers (ASIN or EAN) and
// getCatalogItem. The catalog knows a product in the marketplaces where the seller lists it.
// Also Listings Restrictions 2021-08-01 getListingsRestrictions: an ASIN the catalog does not
// know in the marketplace is ASIN_NOT_FOUND; a known one is restricted only in the used
// conditions (approval required).

const STREAM_RANKS = 49;

type Query = Record<string, string | undefined>;
interface Cursor {
  offset: number;
}
const isCursor = (v: unknown): v is Cursor =>
  typeof v === 'object' && v !== null && Number.isInteger((v as Cursor).offset);

export function registerCatalogItems(app: FastifyInstance, tokens: TokenStore, catalog: Catalog): void {
  const route = sellingRoute(tokens);

  /** The marketplace and data sets of a request, or an error message. */
  function parse(q: Query): { marketplaceId: string; included: Set<string> } | string {
    const marketplaceIds = csv(q.marketplaceIds);
    if (marketplaceIds.length !== 1 || !MARKETPLACES.some((m) => m.id === marketplaceIds[0]))
      return 'marketplaceIds must name exactly one marketplace.';
    const included = q.includedData === undefined ? ['summaries'] : csv(q.includedData);
    const unknown = included.find((d) => !(CATALOG_INCLUDED_DATA as readonly string[]).includes(d));
    if (unknown) return `includedData: unknown value ${unknown}.`;
    return { marketplaceId: marketplaceIds[0]!, included: new Set(included) };
  }

  const productIn = (asin: string, marketplaceId: string) =>
    catalog.productMarketplaces(asin).includes(marketplaceId) ? catalog.productByAsin(asin) : undefined;

  app.get<{ Querystring: Query }>('/catalog/2022-04-01/items', route, async (request, reply) => {
    reply.header('x-amzn-RateLimit-Limit', '2');
    const q = request.query;
    const invalid = (message: string) => reply.code(400).send(sellingError('InvalidInput', message));
    const parsed = parse(q);
    if (typeof parsed === 'string') return invalid(parsed);
    const identifiers = csv(q.identifiers);
    if (identifiers.length === 0 || identifiers.length > 20)
      return invalid('The simulator searches by 1 to 20 identifiers only.');
    if (q.identifiersType !== 'ASIN' && q.identifiersType !== 'EAN')
      return invalid('identifiersType must be ASIN or EAN here.');
    const pageSize = q.pageSize === undefined ? 10 : Number(q.pageSize);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 20)
      return invalid('pageSize must be between 1 and 20.');
    const offset = q.pageToken === undefined ? 0 : decodeToken(q.pageToken, isCursor)?.offset;
    if (offset === undefined) return invalid('Invalid pageToken.');
    // EANs are looked up among the products of the ASINs the caller could know: the
    // simulator has no EAN index, so EAN search covers products listed in the marketplace.
    const found = (
      q.identifiersType === 'ASIN'
        ? identifiers.map((asin) => productIn(asin, parsed.marketplaceId))
        : eanLookup(catalog, parsed.marketplaceId, identifiers)
    ).filter((p): p is CatalogProduct => p !== undefined);
    const items = found
      .slice(offset, offset + pageSize)
      .map((p) => catalogItem(p, parsed.marketplaceId, parsed.included, catalog.seed));
    const more = offset + pageSize < found.length;
    return {
      numberOfResults: found.length,
      ...(more ? { pagination: { nextToken: encodeToken({ offset: offset + pageSize } satisfies Cursor) } } : {}),
      items,
    };
  });

  app.get<{ Querystring: Query }>('/listings/2021-08-01/restrictions', route, async (request, reply) => {
    reply.header('x-amzn-RateLimit-Limit', '5');
    const q = request.query;
    const marketplaceIds = csv(q.marketplaceIds);
    if (!q.asin || !q.sellerId || marketplaceIds.length !== 1 || !MARKETPLACES.some((m) => m.id === marketplaceIds[0]))
      return reply
        .code(400)
        .send(sellingError('InvalidInput', 'asin, sellerId and one marketplace in marketplaceIds are required.'));
    const marketplaceId = marketplaceIds[0]!;
    const reason = !productIn(q.asin, marketplaceId)
      ? { reasonCode: 'ASIN_NOT_FOUND', message: `ASIN ${q.asin} is not in this marketplace.` }
      : q.conditionType?.startsWith('used_')
        ? { reasonCode: 'APPROVAL_REQUIRED', message: 'You need approval to list in this condition.', links: [] }
        : null;
    return {
      restrictions: reason
        ? [{ marketplaceId, ...(q.conditionType ? { conditionType: q.conditionType } : {}), reasons: [reason] }]
        : [],
    };
  });

  app.get<{ Params: { asin: string }; Querystring: Query }>(
    '/catalog/2022-04-01/items/:asin',
    route,
    async (request, reply) => {
      reply.header('x-amzn-RateLimit-Limit', '2');
      const parsed = parse(request.query);
      if (typeof parsed === 'string') return reply.code(400).send(sellingError('InvalidInput', parsed));
      const product = productIn(request.params.asin, parsed.marketplaceId);
      if (!product)
        return reply
          .code(404)
          .send(
            sellingError(
              'NOT_FOUND',
              `Requested item '${request.params.asin}' not found in marketplace '${parsed.marketplaceId}'.`,
            ),
          );
      return catalogItem(product, parsed.marketplaceId, parsed.included, catalog.seed);
    },
  );
}

function eanLookup(catalog: Catalog, marketplaceId: string, eans: string[]): Array<CatalogProduct | undefined> {
  const wanted = new Set(eans);
  const found = new Map<string, CatalogProduct>();
  for (const listing of catalog.listingsIn(marketplaceId)) {
    if (found.size === wanted.size) break;
    const product = catalog.productByAsin(listing.asin)!;
    if (wanted.has(product.ean)) found.set(product.ean, product);
  }
  return eans.map((ean) => found.get(ean));
}

function catalogItem(p: CatalogProduct, marketplaceId: string, included: ReadonlySet<string>, seed: number) {
  const marketplace = MARKETPLACES.find((m) => m.id === marketplaceId)!;
  const mp = { marketplace_id: marketplaceId };
  const displayGroup = `${p.productType.toLowerCase()}_display_on_website`;
  const item: Record<string, unknown> = { asin: p.asin };
  if (included.has('attributes')) {
    item.attributes = {
      item_name: [{ value: p.title, language_tag: marketplace.languageCode, ...mp }],
      brand: [{ value: p.brand, language_tag: marketplace.languageCode, ...mp }],
      color: [{ value: p.color, language_tag: marketplace.languageCode, ...mp }],
      externally_assigned_product_identifier: [{ type: 'ean', value: p.ean, ...mp }],
    };
  }
  if (included.has('identifiers')) {
    item.identifiers = [{ marketplaceId, identifiers: [{ identifierType: 'EAN', identifier: p.ean }] }];
  }
  if (included.has('images')) {
    item.images = [
      {
        marketplaceId,
        images: [
          { variant: 'MAIN', link: `https://m.media-amazon.example/images/I/${p.asin}.jpg`, height: 500, width: 500 },
        ],
      },
    ];
  }
  if (included.has('productTypes')) item.productTypes = [{ marketplaceId, productType: p.productType }];
  if (included.has('salesRanks')) {
    const rank = rngFor(seed, STREAM_RANKS, parseInt(p.asin.slice(2), 36) % 1_000_000_007).int(100, 250_000);
    item.salesRanks = [
      {
        marketplaceId,
        displayGroupRanks: [
          { websiteDisplayGroup: displayGroup, title: p.productType.replace(/_/g, ' ').toLowerCase(), rank },
        ],
        classificationRanks: [],
      },
    ];
  }
  if (included.has('summaries')) {
    item.summaries = [
      {
        marketplaceId,
        brand: p.brand,
        color: p.color,
        itemClassification: 'BASE_PRODUCT',
        itemName: p.title,
        manufacturer: p.brand,
        modelNumber: p.asin.slice(2),
        packageQuantity: 1,
        websiteDisplayGroup: displayGroup,
      },
    ];
  }
  if (included.has('relationships')) item.relationships = [{ marketplaceId, relationships: [] }];
  if (included.has('classifications')) item.classifications = [{ marketplaceId, classifications: [] }];
  if (included.has('dimensions')) item.dimensions = [{ marketplaceId }];
  if (included.has('vendorDetails')) item.vendorDetails = [];
  return item;
}
