import { randomBytes } from 'node:crypto';
import { minorDigits, rngFor, type Catalog, type ListingStatus, type SimListing } from '../catalog.js';
import { createRing } from '../ring.js';

// What the seller changed on top of the generated catalog: accepted listing patches and
// deletions, kept per (SKU, marketplace), plus the log of the latest submissions for tests.

export interface LiveListing extends SimListing {
  /** Units offered for sale by the merchant (fulfillment_availability.quantity); FBA stock lives in the inventory. */
  quantity: number;
  lastUpdatedAt: string;
}

type Changes = Partial<
  Pick<
    LiveListing,
    | 'title'
    | 'price'
    | 'b2bPrice'
    | 'floor'
    | 'ceiling'
    | 'status'
    | 'quantity'
    | 'handlingTime'
    | 'restockDate'
    | 'shippingGroup'
    | 'lastUpdatedAt'
  >
>;

export interface PatchOperation {
  op: 'add' | 'replace' | 'merge' | 'delete';
  path: string;
  value?: unknown[];
}

export interface ListingIssue {
  code: string;
  message: string;
  severity: 'ERROR' | 'WARNING' | 'INFO';
  attributeNames?: string[];
  categories: string[];
}

export interface Submission {
  submissionId: string;
  at: string;
  sku: string;
  marketplaceId: string;
  productType: string;
  patches: PatchOperation[];
  mode: 'APPLY' | 'VALIDATION_PREVIEW';
  status: 'ACCEPTED' | 'INVALID' | 'VALID';
  issues: ListingIssue[];
}

export interface ListingsState {
  readonly catalog: Catalog;
  /** The listing as the marketplace shows it now, or undefined when the SKU isn't in that marketplace. */
  find(sku: string, marketplaceId: string): LiveListing | undefined;
  live(listing: SimListing): LiveListing;
  /** Validates and (unless previewing) applies a patchListingsItem request. */
  patch(
    sku: string,
    marketplaceId: string,
    request: { productType: string; patches: PatchOperation[] },
    mode: Submission['mode'],
  ): Submission;
  /** What deleteListingsItem does: the listing stays, reported DELETED. */
  remove(sku: string, marketplaceId: string): Submission;
  /** The latest submissions (10,000), oldest first. */
  submissions(): Submission[];
  /** The market sold or restocked merchant-fulfilled units. */
  setQuantity(sku: string, marketplaceId: string, quantity: number): void;
  /** Told of every change applied to a listing (patch, deletion, market move), for the notifications. */
  onChange(listener: ListingChangeListener): void;
}

export type ListingChangeListener = (before: LiveListing, after: LiveListing) => void;

const STREAM_QUANTITY = 16;
const SUBMISSION_LIMIT = 10_000;

export function createListingsState(catalog: Catalog, now: () => number): ListingsState {
  const changes = new Map<string, Changes>();
  const log = createRing<Submission>(SUBMISSION_LIMIT);
  const listeners: ListingChangeListener[] = [];
  const keyOf = (sku: string, marketplaceId: string) => `${marketplaceId}/${sku}`;

  function live(listing: SimListing): LiveListing {
    const rng = rngFor(catalog.seed, STREAM_QUANTITY, listing.index);
    const base: LiveListing = {
      ...listing,
      quantity: listing.fulfillmentChannel === 'MFN' ? rng.int(0, 120) : 0,
      // Last touched some time after creation, well before the order history starts.
      lastUpdatedAt: new Date(Date.parse(listing.createdAt) + rng.int(1, 300) * 86_400_000).toISOString(),
    };
    return { ...base, ...changes.get(keyOf(listing.sku, listing.marketplaceId)) };
  }

  function find(sku: string, marketplaceId: string): LiveListing | undefined {
    const listing = catalog.findListing(sku, marketplaceId);
    return listing && live(listing);
  }

  /** Records changes of an existing listing and tells the listeners. */
  function change(sku: string, marketplaceId: string, changed: Changes): void {
    const before = find(sku, marketplaceId)!;
    const key = keyOf(sku, marketplaceId);
    changes.set(key, { ...changes.get(key), ...changed, lastUpdatedAt: new Date(now()).toISOString() });
    const after = find(sku, marketplaceId)!;
    for (const listener of listeners) listener(before, after);
  }

  function submit(
    sku: string,
    marketplaceId: string,
    productType: string,
    patches: PatchOperation[],
    mode: Submission['mode'],
    issues: ListingIssue[],
    apply: () => void,
  ): Submission {
    const status = issues.some((i) => i.severity === 'ERROR')
      ? 'INVALID'
      : mode === 'VALIDATION_PREVIEW'
        ? 'VALID'
        : 'ACCEPTED';
    if (status === 'ACCEPTED') apply();
    const submission: Submission = {
      submissionId: randomBytes(16).toString('hex'),
      at: new Date(now()).toISOString(),
      sku,
      marketplaceId,
      productType,
      patches,
      mode,
      status,
      issues,
    };
    log.push(submission);
    return submission;
  }

  return {
    catalog,
    find,
    live,
    patch(sku, marketplaceId, request, mode) {
      const listing = find(sku, marketplaceId);
      const { changed, issues } = listing ? planPatches(listing, request) : { changed: {}, issues: [notFound(sku)] };
      return submit(sku, marketplaceId, request.productType, request.patches, mode, issues, () =>
        change(sku, marketplaceId, changed),
      );
    },
    remove(sku, marketplaceId) {
      return submit(sku, marketplaceId, 'PRODUCT', [], 'APPLY', find(sku, marketplaceId) ? [] : [notFound(sku)], () =>
        change(sku, marketplaceId, { status: 'DELETED' satisfies ListingStatus }),
      );
    },
    submissions: () => log.list(),
    setQuantity: (sku, marketplaceId, quantity) => change(sku, marketplaceId, { quantity }),
    onChange(listener) {
      listeners.push(listener);
    },
  };
}

const issue = (code: string, message: string, attributeNames?: string[]): ListingIssue => ({
  code,
  message,
  severity: 'ERROR',
  ...(attributeNames ? { attributeNames } : {}),
  categories: ['INVALID_ATTRIBUTE'],
});
const notFound = (sku: string) => issue('LISTING_NOT_FOUND', `SKU ${sku} does not exist in this marketplace.`);

/** The changes a request makes to a listing, or the issues that make it invalid. */
function planPatches(
  listing: LiveListing,
  request: { productType: string; patches: PatchOperation[] },
): { changed: Changes; issues: ListingIssue[] } {
  const issues: ListingIssue[] = [];
  const changed: Changes = {};
  if (listing.status === 'DELETED')
    return { changed, issues: [issue('LISTING_DELETED', 'The listing has been deleted.')] };
  // Offer-only patches may name the generic PRODUCT type (spec 2.6).
  if (request.productType !== listing.productType && request.productType !== 'PRODUCT') {
    issues.push(
      issue(
        'PRODUCT_TYPE_MISMATCH',
        `The product type ${request.productType} does not match the listing's ${listing.productType}.`,
      ),
    );
  }
  const toMinor = (major: unknown, attribute: string): number | undefined => {
    if (major === undefined) return undefined;
    const n = typeof major === 'string' ? Number(major) : major;
    if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) {
      issues.push(issue('INVALID_PRICE', `${attribute} must be a positive amount.`, [attribute]));
      return undefined;
    }
    return Math.round(n * 10 ** minorDigits(listing.currency));
  };
  const merchantOnly = (attribute: string) => {
    if (listing.fulfillmentChannel === 'MFN') return true;
    issues.push(issue('FULFILLMENT_CHANNEL', `${attribute} applies to merchant-fulfilled offers only.`, [attribute]));
    return false;
  };
  for (const patch of request.patches) {
    const attribute = /^\/attributes\/([a-z_]+)$/.exec(patch.path)?.[1];
    const values = (patch.value ?? []) as Array<Record<string, unknown>>;
    if (!attribute) {
      issues.push(issue('INVALID_PATH', `Unsupported patch path ${patch.path}.`));
      continue;
    }
    switch (attribute) {
      case 'purchasable_offer':
        // a replace is the attribute's whole value: a B2B offer it doesn't name is gone
        if (patch.op === 'replace' && listing.b2bPrice !== null && !values.some((o) => o.audience === 'B2B'))
          changed.b2bPrice = null;
        for (const offer of values) {
          if (offer.currency !== undefined && offer.currency !== listing.currency) {
            issues.push(
              issue('INVALID_CURRENCY', `Offers in this marketplace are in ${listing.currency}.`, [attribute]),
            );
            continue;
          }
          const b2b = offer.audience === 'B2B';
          if (patch.op === 'delete') {
            if (b2b) changed.b2bPrice = null;
            else
              issues.push(
                issue('OFFER_REQUIRED', 'The consumer offer cannot be deleted; delete the listing instead.', [
                  attribute,
                ]),
              );
            continue;
          }
          const price = toMinor(schedulePrice(offer.our_price), 'our_price');
          if (price !== undefined) changed[b2b ? 'b2bPrice' : 'price'] = price;
          if (b2b) continue;
          if ('minimum_seller_allowed_price' in offer)
            changed.floor =
              toMinor(schedulePrice(offer.minimum_seller_allowed_price), 'minimum_seller_allowed_price') ?? null;
          if ('maximum_seller_allowed_price' in offer)
            changed.ceiling =
              toMinor(schedulePrice(offer.maximum_seller_allowed_price), 'maximum_seller_allowed_price') ?? null;
        }
        break;
      case 'fulfillment_availability':
        if (!merchantOnly(attribute)) break;
        for (const availability of values) {
          if (typeof availability.quantity === 'number') changed.quantity = availability.quantity;
          if ('lead_time_to_ship_max_days' in availability)
            changed.handlingTime = patch.op === 'delete' ? null : Number(availability.lead_time_to_ship_max_days);
          if ('restock_date' in availability)
            changed.restockDate = patch.op === 'delete' ? null : String(availability.restock_date).slice(0, 10);
        }
        break;
      case 'merchant_shipping_group':
        if (!merchantOnly(attribute)) break;
        changed.shippingGroup = patch.op === 'delete' ? null : String(values[0]?.value ?? '') || null;
        break;
      case 'item_name':
        if (typeof values[0]?.value === 'string') changed.title = values[0].value;
        break;
      default:
      // Other attributes are accepted and have no effect the simulator shows.
    }
  }
  return { changed, issues };
}

/** `[{ schedule: [{ value_with_tax }] }]`, the shape of our_price and the seller-allowed bounds. */
function schedulePrice(value: unknown): unknown {
  const first = Array.isArray(value)
    ? (value[0] as { schedule?: Array<{ value_with_tax?: unknown }> } | undefined)
    : undefined;
  return first?.schedule?.[0]?.value_with_tax;
}
