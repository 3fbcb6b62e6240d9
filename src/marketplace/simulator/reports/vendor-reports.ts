import { minorDigits } from '../catalog.js';
import { MARKETPLACES } from '../marketplaces.js';
import { dateOfDay, dayOf, dayOfWire, keyedRng } from './keyed.js';
import { wireAmount } from './money.js';
import { fatal, jsonDocument, type ReportRequest, type ReportSource, type ReportType } from './types.js';

// The vendor's retail analytics reports: GET_VENDOR_SALES_REPORT, GET_VENDOR_TRAFFIC_REPORT and
// GET_VENDOR_INVENTORY_REPORT, served at reportPeriod DAY over a range of days. Sales and
// inventory come in the MANUFACTURING and SOURCING distributor views (sourcing shows only what
// Amazon bought from this vendor: no ordered units or revenue, no unfilled orders); traffic has
// no views. A day's data lands two days later: a range reaching into the last two days is cut
// there, and a report with no day left is cancelled (no data).

type View = 'MANUFACTURING' | 'SOURCING';

interface Plan {
  marketplaceId: string;
  currency: string;
  view: View;
  from: number;
  to: number;
}

function plan(request: ReportRequest, source: ReportSource, views: boolean): Plan | string | null {
  if (request.marketplaceIds.length !== 1) return 'Each vendor account belongs to only one marketplaceId per report.';
  const marketplace = MARKETPLACES.find((m) => m.id === request.marketplaceIds[0]);
  if (!marketplace) return `The vendor does not sell in ${request.marketplaceIds[0]}.`;
  if (request.reportOptions.reportPeriod !== 'DAY') return 'The simulator serves reportPeriod DAY only.';
  const view = (views ? request.reportOptions.distributorView : 'MANUFACTURING') as View;
  if (view !== 'MANUFACTURING' && view !== 'SOURCING') return 'distributorView must be MANUFACTURING or SOURCING.';
  const from = dayOfWire(request.dataStartTime);
  const requestedTo = dayOfWire(request.dataEndTime);
  if (from === undefined || requestedTo === undefined || requestedTo < from)
    return 'dataStartTime and dataEndTime must be dates, in order.';
  const to = Math.min(requestedTo, dayOf(source.asOf) - 2);
  if (to < from) return null;
  return { marketplaceId: marketplace.id, currency: marketplace.currencyCode, view, from, to };
}

/** One ASIN's figures for one day of one marketplace; both views derive from the same draw. */
function asinDay(source: ReportSource, marketplaceId: string, currency: string, asin: string, day: number) {
  const yen = minorDigits(currency) === 0;
  const price =
    keyedRng(source.seed, 'vendor-price', marketplaceId, asin).int(yen ? 100 : 5, yen ? 1500 : 120) * (yen ? 10 : 100) -
    (yen ? 0 : 1);
  const rng = keyedRng(source.seed, 'vendor-day', marketplaceId, asin, day);
  const orderedUnits = rng.int(0, 24);
  const shippedUnits = Math.max(0, orderedUnits + rng.int(-3, 3));
  const sourcedShare = 0.6 + rng.next() * 0.4;
  const sellable = rng.int(20, 900);
  return {
    price,
    cost: Math.round(price * 0.55),
    orderedUnits,
    shippedUnits,
    sourcedUnits: Math.floor(shippedUnits * sourcedShare),
    customerReturns: rng.next() < 0.15 ? rng.int(1, 2) : 0,
    glanceViews: orderedUnits * rng.int(6, 40) + rng.int(0, 30),
    sellable,
    unsellable: rng.int(0, 25),
    openPo: rng.int(0, 300),
    received: rng.int(0, 120),
    unfilled: rng.int(0, 4),
    sellThrough: Math.round(rng.next() * 1000) / 1000,
    fill: Math.round((0.7 + rng.next() * 0.3) * 1000) / 1000,
    confirmation: Math.round((0.75 + rng.next() * 0.25) * 1000) / 1000,
    leadTime: Math.round((3 + rng.next() * 12) * 10) / 10,
    roos: Math.round(rng.next() * 0.3 * 1000) / 1000,
  };
}

type Figures = ReturnType<typeof asinDay>;

/**
 * A vendor report over the plan's days: `total` words the figures of the aggregate, and of one
 * ASIN's row as the total of its one day.
 */
function vendorReport(
  views: boolean,
  aggregateKey: string,
  byAsinKey: string,
  total: (rows: Figures[], p: Plan) => Record<string, unknown>,
): ReportType {
  return {
    principal: 'vendor',
    produce(request, source) {
      const p = plan(request, source, views);
      if (p === null) return { kind: 'empty' as const };
      if (typeof p === 'string') return fatal(p);
      const aggregate = [];
      const byAsin = [];
      for (let day = p.from; day <= p.to; day++) {
        const dates = { startDate: dateOfDay(day), endDate: dateOfDay(day) };
        const figures = source.vendor
          .asins()
          .map((asin) => ({ asin, f: asinDay(source, p.marketplaceId, p.currency, asin, day) }));
        aggregate.push({
          ...dates,
          ...total(
            figures.map((x) => x.f),
            p,
          ),
        });
        for (const { asin, f } of figures) byAsin.push({ ...dates, asin, ...total([f], p) });
      }
      return jsonDocument({
        reportSpecification: {
          reportType: request.reportType,
          reportOptions: request.reportOptions,
          ...(aggregateKey === 'salesAggregate' ? { lastUpdatedDate: dateOfDay(dayOf(source.asOf)) } : {}),
          dataStartTime: dateOfDay(p.from),
          dataEndTime: dateOfDay(p.to),
          marketplaceIds: request.marketplaceIds,
        },
        [aggregateKey]: aggregate,
        [byAsinKey]: byAsin,
      });
    },
  };
}

const sum = (rows: Figures[], pick: (f: Figures) => number) => rows.reduce((n, f) => n + pick(f), 0);
const mean = (rows: Figures[], pick: (f: Figures) => number) =>
  rows.length === 0 ? 0 : Math.round((sum(rows, pick) / rows.length) * 1000) / 1000;

function salesFields(rows: Figures[], p: Plan) {
  const money = (minor: number) => wireAmount(minor, p.currency);
  const shipped = (f: Figures) => (p.view === 'SOURCING' ? f.sourcedUnits : f.shippedUnits);
  return {
    customerReturns: sum(rows, (f) => f.customerReturns),
    ...(p.view === 'MANUFACTURING'
      ? {
          orderedRevenue: money(sum(rows, (f) => f.orderedUnits * f.price)),
          orderedUnits: sum(rows, (f) => f.orderedUnits),
        }
      : {}),
    shippedCogs: money(sum(rows, (f) => shipped(f) * f.cost)),
    shippedRevenue: money(sum(rows, (f) => shipped(f) * f.price)),
    shippedUnits: sum(rows, shipped),
  };
}

function inventoryFields(rows: Figures[], p: Plan) {
  const money = (minor: number) => wireAmount(minor, p.currency);
  // sourcing counts only stock bought from this vendor
  const part = (n: number) => (p.view === 'SOURCING' ? Math.floor(n * 0.8) : n);
  return {
    vendorConfirmationRate: mean(rows, (f) => f.confirmation),
    netReceivedInventoryCost: money(sum(rows, (f) => part(f.received) * f.cost)),
    netReceivedInventoryUnits: sum(rows, (f) => part(f.received)),
    openPurchaseOrderUnits: sum(rows, (f) => part(f.openPo)),
    averageVendorLeadTimeDays: mean(rows, (f) => f.leadTime),
    sellThroughRate: mean(rows, (f) => f.sellThrough),
    ...(p.view === 'MANUFACTURING' ? { unfilledCustomerOrderedUnits: sum(rows, (f) => f.unfilled) } : {}),
    sellableOnHandInventoryCost: money(sum(rows, (f) => part(f.sellable) * f.cost)),
    sellableOnHandInventoryUnits: sum(rows, (f) => part(f.sellable)),
    unsellableOnHandInventoryCost: money(sum(rows, (f) => part(f.unsellable) * f.cost)),
    unsellableOnHandInventoryUnits: sum(rows, (f) => part(f.unsellable)),
    procurableProductOutOfStockRate: mean(rows, (f) => f.roos),
    receiveFillRate: mean(rows, (f) => f.fill),
  };
}

export const vendorSales = vendorReport(true, 'salesAggregate', 'salesByAsin', salesFields);

export const vendorTraffic = vendorReport(false, 'trafficAggregate', 'trafficByAsin', (rows) => ({
  glanceViews: sum(rows, (f) => f.glanceViews),
}));

export const vendorInventory = vendorReport(true, 'inventoryAggregate', 'inventoryByAsin', inventoryFields);
