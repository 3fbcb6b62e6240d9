import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { LISTING_INCLUDED_DATA, type ListingIncludedData } from '../../clients/selling-listings-types.js';
import { accessDenied, sellingError, unparsableRequest } from '../api-errors.js';
import { formatAmount, minorDigits, rngFor } from '../catalog.js';
import { MARKETPLACES } from '../marketplaces.js';
import type { FictionalSeller } from '../seller.js';
import { sellingRoute, type TokenStore } from '../tokens.js';
import type { LiveListing, ListingsState } from './listings-state.js';
import { csv, decodeToken, encodeToken, isMarketplaceCursor, type MarketplaceCursor } from './page-token.js';

// Listings Items API 2021-08-01: getListingsItem, searchListingsItems, patchListingsItem and
// deleteListingsItem for the fictional seller. Search pages through one marketplace in
// catalog order (sortBy/sortOrder are not simulated) and, unlike the real API, past 1,000
// items, so the bench catalog can be read through it.

const RATE_LIMIT = '5';
/** The Listings Items API's items of one seller. */
const BASE = '/listings/2021-08-01/items/:sellerId';

const patchBody = z.object({
  productType: z.string().min(1),
  patches: z
    .array(
      z.object({
        op: z.enum(['add', 'replace', 'merge', 'delete']),
        path: z.string(),
        value: z.array(z.unknown()).optional(),
      }),
    )
    .min(1),
});

type Query = Record<string, string | undefined>;
/** A route of one SKU of the seller's. */
type SkuRoute = { Params: { sellerId: string; sku: string }; Querystring: Query };

export function registerListings(
  app: FastifyInstance,
  seller: FictionalSeller,
  tokens: TokenStore,
  state: ListingsState,
): void {
  const route = sellingRoute(tokens);

  /** The one marketplace of the request, or an error answer already sent. */
  function requestContext(reply: FastifyReply, sellerId: string, query: Query, defaultIncluded: ListingIncludedData[]) {
    reply.header('x-amzn-RateLimit-Limit', RATE_LIMIT);
    if (sellerId !== seller.merchantId) {
      reply.code(403).send(accessDenied(`The seller ${sellerId} is not authorized by this token.`));
      return undefined;
    }
    const marketplaceIds = csv(query.marketplaceIds);
    if (marketplaceIds.length !== 1 || !MARKETPLACES.some((m) => m.id === marketplaceIds[0])) {
      reply
        .code(400)
        .send(
          sellingError('InvalidInput', 'marketplaceIds must name exactly one marketplace the seller participates in.'),
        );
      return undefined;
    }
    const included = query.includedData === undefined ? defaultIncluded : csv(query.includedData);
    const unknown = included.find((d) => !(LISTING_INCLUDED_DATA as readonly string[]).includes(d));
    if (unknown) {
      reply.code(400).send(sellingError('InvalidInput', `includedData: unknown value ${unknown}.`));
      return undefined;
    }
    return { marketplaceId: marketplaceIds[0]!, included: new Set(included as ListingIncludedData[]) };
  }

  app.get<SkuRoute>(`${BASE}/:sku`, route, async (request, reply) => {
    const context = requestContext(reply, request.params.sellerId, request.query, ['summaries']);
    if (!context) return reply;
    const listing = state.find(request.params.sku, context.marketplaceId);
    if (!listing)
      return reply
        .code(404)
        .send(
          sellingError('NOT_FOUND', `SKU '${request.params.sku}' not found in marketplace ${context.marketplaceId}`),
        );
    return listingItem(listing, context.included);
  });

  app.get<{ Params: { sellerId: string }; Querystring: Query }>(BASE, route, async (request, reply) => {
    const query = request.query;
    const context = requestContext(reply, request.params.sellerId, query, ['summaries']);
    if (!context) return reply;
    const unsupported = [
      'identifiers',
      'variationParentSku',
      'packageHierarchySku',
      'createdAfter',
      'createdBefore',
      'lastUpdatedAfter',
      'lastUpdatedBefore',
      'withIssueSeverity',
      'withStatus',
      'withoutStatus',
    ].find((p) => query[p] !== undefined);
    if (unsupported)
      return reply
        .code(400)
        .send(sellingError('InvalidInput', `The simulator does not support the ${unsupported} filter.`));
    const pageSize = query.pageSize === undefined ? 10 : Number(query.pageSize);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 20)
      return reply.code(400).send(sellingError('InvalidInput', 'pageSize must be between 1 and 20.'));
    const { marketplaceId } = context;
    let k = 0;
    if (query.pageToken !== undefined) {
      const cursor = decodeToken(query.pageToken, isMarketplaceCursor);
      if (!cursor || cursor.marketplaceId !== marketplaceId)
        return reply.code(400).send(sellingError('InvalidInput', 'Invalid pageToken.'));
      k = cursor.k;
    }
    const total = state.catalog.marketplaceListingCount(marketplaceId);
    const items = [];
    for (let i = k; i < Math.min(total, k + pageSize); i++)
      items.push(listingItem(state.live(state.catalog.marketplaceListingAt(marketplaceId, i)), context.included));
    const next =
      k + pageSize < total ? encodeToken({ marketplaceId, k: k + pageSize } satisfies MarketplaceCursor) : undefined;
    const previous =
      k > 0 ? encodeToken({ marketplaceId, k: Math.max(0, k - pageSize) } satisfies MarketplaceCursor) : undefined;
    return {
      numberOfResults: total,
      ...(next || previous
        ? { pagination: { ...(next ? { nextToken: next } : {}), ...(previous ? { previousToken: previous } : {}) } }
        : {}),
      items,
    };
  });

  app.patch<SkuRoute>(`${BASE}/:sku`, route, async (request, reply) => {
    const context = requestContext(reply, request.params.sellerId, request.query, ['issues']);
    if (!context) return reply;
    const body = patchBody.safeParse(request.body);
    if (!body.success) return reply.code(400).send(unparsableRequest(body.error.issues[0]?.message));
    const mode = request.query.mode === 'VALIDATION_PREVIEW' ? 'VALIDATION_PREVIEW' : 'APPLY';
    const submission = state.patch(request.params.sku, context.marketplaceId, body.data, mode);
    return submissionResponse(submission);
  });

  app.delete<SkuRoute>(`${BASE}/:sku`, route, async (request, reply) => {
    const context = requestContext(reply, request.params.sellerId, request.query, []);
    if (!context) return reply;
    return submissionResponse(state.remove(request.params.sku, context.marketplaceId));
  });

  app.get('/_sim/listings/submissions', async () => ({ submissions: state.submissions() }));
}

const submissionResponse = (s: { sku: string; status: string; submissionId: string; issues: unknown[] }) => ({
  sku: s.sku,
  status: s.status,
  submissionId: s.submissionId,
  issues: s.issues,
});

const FBA_CHANNEL: Readonly<Record<string, string>> = {
  US: 'AMAZON_NA',
  CA: 'AMAZON_NA',
  GB: 'AMAZON_EU',
  DE: 'AMAZON_EU',
  JP: 'AMAZON_JP',
};
const STREAM_ISSUES = 17;

/** The provider's timestamps carry no milliseconds. */
const iso = (at: string) => at.replace(/\.\d{3}Z$/, 'Z');

/** Amounts in listing attributes are JSON numbers in major units. */
const major = (minor: number, currency: string) => minor / 10 ** minorDigits(currency);
const schedule = (minor: number, currency: string) => [{ schedule: [{ value_with_tax: major(minor, currency) }] }];

/** The fulfillment network's channel code for an FBA listing in this marketplace. */
export function fbaChannelCode(marketplaceId: string): string {
  return FBA_CHANNEL[MARKETPLACES.find((m) => m.id === marketplaceId)!.countryCode]!;
}

/** The FBA listing's fulfillment network SKU. */
export const fnSkuOf = (listing: LiveListing): string =>
  `X00${listing.sku
    .replace(/[^0-9A-Z]/g, '')
    .slice(-7)
    .padStart(7, '0')}`;

/** The wire `Item` of a listing with the requested data sets. */
export function listingItem(l: LiveListing, included: ReadonlySet<ListingIncludedData>) {
  const marketplace = MARKETPLACES.find((m) => m.id === l.marketplaceId)!;
  const fba = l.fulfillmentChannel === 'FBA';
  const item: Record<string, unknown> = { sku: l.sku };
  const mp = { marketplace_id: l.marketplaceId };
  if (included.has('summaries')) {
    item.summaries = [
      {
        marketplaceId: l.marketplaceId,
        asin: l.asin,
        productType: l.productType,
        conditionType: l.conditionType,
        // A listing whose status the marketplace hasn't reported yet has none.
        ...(l.status === null ? {} : { status: l.status === 'BUYABLE' ? ['BUYABLE', 'DISCOVERABLE'] : [l.status] }),
        ...(fba ? { fnSku: fnSkuOf(l) } : {}),
        itemName: l.title,
        createdDate: iso(l.createdAt),
        lastUpdatedDate: iso(l.lastUpdatedAt),
        mainImage: { link: `https://m.media-amazon.example/images/I/${l.asin}.jpg`, height: 500, width: 500 },
      },
    ];
  }
  if (included.has('attributes')) {
    const offers: Record<string, unknown>[] = [
      {
        ...mp,
        currency: l.currency,
        audience: 'ALL',
        our_price: schedule(l.price, l.currency),
        ...(l.floor === null ? {} : { minimum_seller_allowed_price: schedule(l.floor, l.currency) }),
        ...(l.ceiling === null ? {} : { maximum_seller_allowed_price: schedule(l.ceiling, l.currency) }),
      },
    ];
    if (l.b2bPrice !== null)
      offers.push({ ...mp, currency: l.currency, audience: 'B2B', our_price: schedule(l.b2bPrice, l.currency) });
    item.attributes = {
      item_name: [{ value: l.title, language_tag: marketplace.languageCode, ...mp }],
      condition_type: [{ value: l.conditionType, ...mp }],
      purchasable_offer: offers,
      fulfillment_availability: fba
        ? [{ fulfillment_channel_code: fbaChannelCode(l.marketplaceId), ...mp }]
        : [
            {
              fulfillment_channel_code: 'DEFAULT',
              quantity: l.quantity,
              ...(l.handlingTime === null ? {} : { lead_time_to_ship_max_days: l.handlingTime }),
              ...(l.restockDate === null ? {} : { restock_date: l.restockDate }),
              ...mp,
            },
          ],
      ...(l.shippingGroup === null ? {} : { merchant_shipping_group: [{ value: l.shippingGroup, ...mp }] }),
    };
  }
  if (included.has('issues')) {
    item.issues =
      rngFor(0, STREAM_ISSUES, l.index).next() < 0.1
        ? [
            {
              code: '90220',
              message: "'bullet_point' is required but not supplied.",
              severity: 'WARNING',
              attributeNames: ['bullet_point'],
              categories: ['MISSING_ATTRIBUTE'],
            },
          ]
        : [];
  }
  if (included.has('offers')) {
    const money = (minor: number) => ({ currencyCode: l.currency, amount: formatAmount(minor, l.currency) });
    item.offers = [
      {
        marketplaceId: l.marketplaceId,
        offerType: 'B2C',
        price: money(l.price),
        audience: { value: 'ALL', displayName: 'Sell on Amazon' },
      },
      ...(l.b2bPrice === null
        ? []
        : [
            {
              marketplaceId: l.marketplaceId,
              offerType: 'B2B',
              price: money(l.b2bPrice),
              audience: { value: 'B2B', displayName: 'Amazon Business' },
            },
          ]),
    ];
  }
  if (included.has('fulfillmentAvailability')) {
    item.fulfillmentAvailability = fba
      ? [{ fulfillmentChannelCode: fbaChannelCode(l.marketplaceId) }]
      : [{ fulfillmentChannelCode: 'DEFAULT', quantity: l.quantity }];
  }
  if (included.has('productTypes'))
    item.productTypes = [{ marketplaceId: l.marketplaceId, productType: l.productType }];
  if (included.has('relationships')) item.relationships = [{ marketplaceId: l.marketplaceId, relationships: [] }];
  if (included.has('procurement')) item.procurement = [];
  return item;
}
