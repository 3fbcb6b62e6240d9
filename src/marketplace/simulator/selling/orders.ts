import type { FastifyInstance } from 'fastify';
import { sellingError } from '../api-errors.js';
import { formatAmount, type ConditionFamily } from '../catalog.js';
import { MARKETPLACES } from '../marketplaces.js';
import { sellingRoute, type TokenStore } from '../tokens.js';
import { DAY_MS, orderAsOf, type OrderStatus, type OrdersBook, type SimOrder } from './orders-book.js';
import { csv, decodeToken, encodeToken } from './page-token.js';

// Orders API v0: getOrders (by creation or last-update window) and getOrderItems. Pending
// orders show no items, as the brief of this simulator asks. Orders placed after the
// simulator's "now" don't exist yet.

/** How far past its purchase an order can still change (the longest ship or cancel delay). */
const LONGEST_CHANGE_MS = 12 * DAY_MS;
const ITEMS_PER_PAGE = 30;
const ORDER_STATUSES: readonly OrderStatus[] = ['Pending', 'Unshipped', 'PartiallyShipped', 'Shipped', 'Canceled'];

interface OrdersQuery {
  by: 'created' | 'updated';
  after: number;
  before: number;
  marketplaceIds: string[];
  statuses: OrderStatus[];
  max: number;
}
interface OrdersCursor {
  query: OrdersQuery;
  day: number;
  m: number;
  ordinal: number;
}
const isOrdersCursor = (v: unknown): v is OrdersCursor =>
  typeof v === 'object' && v !== null && 'query' in v && Number.isInteger((v as OrdersCursor).day);
const isItemsCursor = (v: unknown): v is { orderId: string; i: number } =>
  typeof v === 'object' && v !== null && Number.isInteger((v as { i: unknown }).i);

type Query = Record<string, string | undefined>;

export function registerOrders(app: FastifyInstance, tokens: TokenStore, book: OrdersBook, now: () => number): void {
  const route = sellingRoute(tokens);
  const invalid = (message: string) => sellingError('InvalidInput', message);

  app.get<{ Querystring: Query }>('/orders/v0/orders', route, async (request, reply) => {
    reply.header('x-amzn-RateLimit-Limit', '0.0167');
    const at = now();
    let cursor: OrdersCursor;
    if (request.query.NextToken !== undefined) {
      const decoded = decodeToken(request.query.NextToken, isOrdersCursor);
      if (!decoded) return reply.code(400).send(invalid('Invalid NextToken.'));
      cursor = decoded;
    } else {
      const parsed = parseOrdersQuery(request.query, at);
      if (typeof parsed === 'string') return reply.code(400).send(invalid(parsed));
      const firstDay = Math.floor((parsed.by === 'created' ? parsed.after : parsed.after - LONGEST_CHANGE_MS) / DAY_MS);
      cursor = { query: parsed, day: firstDay, m: 0, ordinal: 0 };
    }
    const { query } = cursor;
    const before = Math.min(query.before, at);
    const lastDay = Math.floor(before / DAY_MS);
    const matches = (order: SimOrder) => {
      if (order.purchasedAt > at) return false;
      const state = orderAsOf(order, at);
      const time = query.by === 'created' ? order.purchasedAt : state.lastUpdatedAt;
      return (
        time >= query.after && time <= before && (query.statuses.length === 0 || query.statuses.includes(state.status))
      );
    };
    const page: SimOrder[] = [];
    let next: OrdersCursor | undefined;
    scan: for (let day = cursor.day; day <= lastDay; day++) {
      for (let m = day === cursor.day ? cursor.m : 0; m < query.marketplaceIds.length; m++) {
        const orders = book.ordersOn(day, query.marketplaceIds[m]!);
        const start = day === cursor.day && m === cursor.m ? cursor.ordinal : 0;
        for (let ordinal = start; ordinal < orders.length; ordinal++) {
          if (!matches(orders[ordinal]!)) continue;
          if (page.length === query.max) {
            next = { query, day, m, ordinal };
            break scan;
          }
          page.push(orders[ordinal]!);
        }
      }
    }
    const echo = query.by === 'created' ? { CreatedBefore: iso(before) } : { LastUpdatedBefore: iso(before) };
    return {
      payload: {
        Orders: page.map((o) => orderWire(o, at)),
        ...(next ? { NextToken: encodeToken(next) } : {}),
        ...echo,
      },
    };
  });

  app.get<{ Params: { orderId: string }; Querystring: Query }>(
    '/orders/v0/orders/:orderId/orderItems',
    route,
    async (request, reply) => {
      reply.header('x-amzn-RateLimit-Limit', '0.5');
      const at = now();
      const { orderId } = request.params;
      const order = book.order(orderId);
      if (!order || order.purchasedAt > at)
        return reply.code(404).send(sellingError('NotFound', `Order ${orderId} not found.`));
      let start = 0;
      if (request.query.NextToken !== undefined) {
        const cursor = decodeToken(request.query.NextToken, isItemsCursor);
        if (!cursor || cursor.orderId !== orderId) return reply.code(400).send(invalid('Invalid NextToken.'));
        start = cursor.i;
      }
      const state = orderAsOf(order, at);
      const lines = state.status === 'Pending' ? [] : order.lines;
      const items = lines.slice(start, start + ITEMS_PER_PAGE).map((line, i) => {
        const money = (minor: number) => ({
          CurrencyCode: order.currency,
          Amount: formatAmount(minor, order.currency),
        });
        const [family, subtype] = conditionIds(line.listing.conditionFamily, line.listing.conditionType);
        return {
          ASIN: line.listing.asin,
          SellerSKU: line.listing.sku,
          OrderItemId: line.orderItemId,
          Title: line.listing.title,
          QuantityOrdered: line.quantity,
          QuantityShipped: start + i < state.shippedLines ? line.quantity : 0,
          ProductInfo: { NumberOfItems: '1' },
          ItemPrice: money(line.itemPrice),
          ItemTax: money(line.itemTax),
          PromotionDiscount: money(0),
          PromotionDiscountTax: money(0),
          IsGift: 'false',
          ConditionId: family,
          ConditionSubtypeId: subtype,
          IsTransparency: false,
          SerialNumberRequired: false,
        };
      });
      const more = start + ITEMS_PER_PAGE < lines.length;
      return {
        payload: {
          AmazonOrderId: orderId,
          OrderItems: items,
          ...(more ? { NextToken: encodeToken({ orderId, i: start + ITEMS_PER_PAGE }) } : {}),
        },
      };
    },
  );
}

function parseOrdersQuery(q: Query, at: number): OrdersQuery | string {
  const marketplaceIds = csv(q.MarketplaceIds);
  if (marketplaceIds.length === 0 || marketplaceIds.length > 50)
    return 'MarketplaceIds must list 1 to 50 marketplaces.';
  const unknown = marketplaceIds.find((id) => !MARKETPLACES.some((m) => m.id === id));
  if (unknown) return `Invalid MarketplaceId ${unknown}.`;
  if ((q.CreatedAfter === undefined) === (q.LastUpdatedAfter === undefined))
    return 'Exactly one of CreatedAfter and LastUpdatedAfter is required.';
  const by = q.CreatedAfter !== undefined ? 'created' : 'updated';
  const after = Date.parse((by === 'created' ? q.CreatedAfter : q.LastUpdatedAfter)!);
  const beforeText = by === 'created' ? q.CreatedBefore : q.LastUpdatedBefore;
  const before = beforeText === undefined ? at : Date.parse(beforeText);
  if (!Number.isFinite(after) || !Number.isFinite(before)) return 'Dates must be ISO 8601.';
  if (before < after)
    return `${by === 'created' ? 'CreatedBefore' : 'LastUpdatedBefore'} must not be earlier than the start of the window.`;
  const statuses = csv(q.OrderStatuses);
  const badStatus = statuses.find((s) => !(ORDER_STATUSES as readonly string[]).includes(s));
  if (badStatus) return `Invalid OrderStatuses value ${badStatus}.`;
  const max = q.MaxResultsPerPage === undefined ? 100 : Number(q.MaxResultsPerPage);
  if (!Number.isInteger(max) || max < 1 || max > 100) return 'MaxResultsPerPage must be between 1 and 100.';
  return { by, after, before, marketplaceIds, statuses: statuses as OrderStatus[], max };
}

/** The provider's timestamps: ISO 8601 UTC without milliseconds. */
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function orderWire(order: SimOrder, at: number) {
  const state = orderAsOf(order, at);
  const marketplace = MARKETPLACES.find((m) => m.id === order.marketplaceId)!;
  const units = order.lines.reduce((n, l) => n + l.quantity, 0);
  const shipped = order.lines.slice(0, state.shippedLines).reduce((n, l) => n + l.quantity, 0);
  const total = order.lines.reduce((n, l) => n + l.itemPrice + l.itemTax, 0);
  const afn = order.fulfillmentChannel === 'AFN';
  return {
    AmazonOrderId: order.amazonOrderId,
    PurchaseDate: iso(order.purchasedAt),
    LastUpdateDate: iso(state.lastUpdatedAt),
    OrderStatus: state.status,
    FulfillmentChannel: order.fulfillmentChannel,
    SalesChannel: marketplace.name,
    ShipServiceLevel: afn ? 'Expedited' : 'Std Dom',
    // Pending and canceled orders carry no total, as the provider's do.
    ...(state.status === 'Pending' || state.status === 'Canceled'
      ? {}
      : { OrderTotal: { CurrencyCode: order.currency, Amount: formatAmount(total, order.currency) } }),
    NumberOfItemsShipped: state.status === 'Canceled' ? 0 : shipped,
    NumberOfItemsUnshipped: state.status === 'Canceled' ? 0 : units - shipped,
    PaymentMethod: 'Other',
    PaymentMethodDetails: ['Standard'],
    MarketplaceId: order.marketplaceId,
    ShipmentServiceLevelCategory: afn ? 'Expedited' : 'Standard',
    OrderType: 'StandardOrder',
    EarliestShipDate: iso(order.purchasedAt + order.pendingMs),
    LatestShipDate: iso(order.purchasedAt + order.shipMs + DAY_MS),
    IsBusinessOrder: order.isBusinessOrder,
    IsPrime: false,
    IsPremiumOrder: false,
    IsGlobalExpressEnabled: false,
    IsReplacementOrder: false,
    IsSoldByAB: false,
    IsISPU: false,
    IsAccessPointOrder: false,
    HasRegulatedItems: false,
  };
}

const SUBTYPES: Readonly<Record<string, string>> = {
  new: 'New',
  open_box: 'Open Box',
  oem: 'OEM',
  like_new: 'Mint',
  very_good: 'Very Good',
  good: 'Good',
  acceptable: 'Acceptable',
  refurbished: 'Refurbished',
  club: 'Club',
};

/** The order item's ConditionId and ConditionSubtypeId for a listing condition token. */
function conditionIds(family: ConditionFamily, token: string): [string, string] {
  const rest = token.slice(token.indexOf('_') + 1);
  return [family[0]!.toUpperCase() + family.slice(1), SUBTYPES[rest] ?? 'Any'];
}
