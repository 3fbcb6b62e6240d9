import { minorDigits } from '../catalog.js';
import type { LiveListing } from '../selling/listings-state.js';
import type { BookOffer, Competition } from './competition.js';

// Payloads of the offer notifications, from the offer book of one listing:
// ANY_OFFER_CHANGED and B2B_ANY_OFFER_CHANGED (PascalCase) and PRICING_HEALTH (camelCase).

type Money = { Amount: number; CurrencyCode: string };
const money = (minor: number, currency: string): Money => ({
  Amount: minor / 10 ** minorDigits(currency),
  CurrencyCode: currency,
});
const channel = (o: BookOffer) => (o.fba ? 'Amazon' : 'Merchant');
const capitalized = (s: string) => s[0]!.toUpperCase() + s.slice(1);

/** Offer counts per (condition, channel), as the summaries list them. */
function counts(l: LiveListing, book: BookOffer[]) {
  const byChannel = new Map<string, number>();
  for (const o of book) byChannel.set(channel(o), (byChannel.get(channel(o)) ?? 0) + 1);
  return [...byChannel].map(([FulfillmentChannel, OfferCount]) => ({
    Condition: l.conditionFamily,
    FulfillmentChannel,
    OfferCount,
  }));
}

function prices(l: LiveListing, o: BookOffer) {
  return {
    LandedPrice: money(o.price + o.shipping, l.currency),
    ListingPrice: money(o.price, l.currency),
    Shipping: money(o.shipping, l.currency),
  };
}

const lowest = (book: BookOffer[]) => book.reduce((a, b) => (b.price + b.shipping < a.price + a.shipping ? b : a));

function trigger(l: LiveListing, at: string) {
  return {
    MarketplaceId: l.marketplaceId,
    ASIN: l.asin,
    ItemCondition: capitalized(l.conditionFamily),
    TimeOfOfferChange: at,
  };
}

function offerRow(l: LiveListing, sellerId: string, o: BookOffer) {
  return {
    SellerId: o.sellerId ?? sellerId,
    SubCondition: l.conditionFamily === 'new' ? 'new' : 'good',
    SellerFeedbackRating: { FeedbackCount: o.feedbackCount, SellerPositiveFeedbackRating: o.positiveRating },
    ShippingTime: { MinimumHours: o.fba ? 0 : 24, MaximumHours: o.fba ? 24 : 48, AvailabilityType: 'NOW' },
    ListingPrice: money(o.price, l.currency),
    Shipping: money(o.shipping, l.currency),
    IsFulfilledByAmazon: o.fba,
    IsBuyBoxWinner: o.buyBoxWinner,
    IsFeaturedMerchant: true,
  };
}

export function anyOfferChanged(
  sellerId: string,
  l: LiveListing,
  competition: Competition,
  at: string,
  changeType: 'External' | 'Internal',
) {
  const book = competition.book(l);
  const winner = book.find((o) => o.buyBoxWinner)!;
  const low = lowest(book);
  return {
    AnyOfferChangedNotification: {
      SellerId: sellerId,
      OfferChangeTrigger: { ...trigger(l, at), OfferChangeType: changeType },
      Summary: {
        NumberOfOffers: counts(l, book),
        LowestPrices: [{ Condition: l.conditionFamily, FulfillmentChannel: channel(low), ...prices(l, low) }],
        BuyBoxPrices: [{ Condition: l.conditionFamily, ...prices(l, winner) }],
        TotalBuyBoxEligibleOffers: book.length,
        NumberOfBuyBoxEligibleOffers: counts(l, book),
        CompetitivePriceThreshold: money(winner.price + winner.shipping, l.currency),
      },
      Offers: book.map((o) => offerRow(l, sellerId, o)),
    },
  };
}

export function b2bAnyOfferChanged(sellerId: string, l: LiveListing, competition: Competition, at: string) {
  const book = competition.book(l, true);
  const winner = book.find((o) => o.buyBoxWinner)!;
  const low = lowest(book);
  const tier = { OfferType: 'B2B', QuantityTier: 1 };
  return {
    B2BAnyOfferChangedNotification: {
      SellerId: sellerId,
      OfferChangeTrigger: trigger(l, at),
      Summary: {
        NumberOfOffers: counts(l, book),
        BuyBoxEligibleOffers: counts(l, book),
        LowestPrices: [{ Condition: l.conditionFamily, FulfillmentChannel: channel(low), ...tier, ...prices(l, low) }],
        BuyBoxPrices: [
          { Condition: l.conditionFamily, ...tier, ...prices(l, winner), SellerId: winner.sellerId ?? sellerId },
        ],
      },
      Offers: book.map((o) => offerRow(l, sellerId, o)),
    },
  };
}

/** Our offer lost the Buy Box on price: the threshold is the winner's landed price. */
export function pricingHealth(sellerId: string, l: LiveListing, competition: Competition, at: string) {
  const book = competition.book(l);
  const ours = book[0]!;
  const winner = book.find((o) => o.buyBoxWinner)!;
  const camel = (minor: number) => ({ amount: minor / 10 ** minorDigits(l.currency), currencyCode: l.currency });
  const fulfillmentType = (o: BookOffer) => (o.fba ? 'AFN' : 'MFN');
  const offerCounts = [...new Set(book.map(fulfillmentType))].map((type) => ({
    condition: l.conditionFamily,
    fulfillmentType: type,
    offerCount: book.filter((o) => fulfillmentType(o) === type).length,
  }));
  const priced = (o: BookOffer) => ({
    listingPrice: camel(o.price),
    shipping: camel(o.shipping),
    landedPrice: camel(o.price + o.shipping),
  });
  return {
    issueType: 'BuyBoxDisqualification',
    sellerId,
    offerChangeTrigger: {
      marketplaceId: l.marketplaceId,
      asin: l.asin,
      itemCondition: l.conditionFamily,
      timeOfOfferChange: at,
    },
    merchantOffer: { condition: l.conditionFamily, fulfillmentType: fulfillmentType(ours), ...priced(ours) },
    summary: {
      numberOfOffers: offerCounts,
      buyBoxEligibleOffers: offerCounts,
      buyBoxPrices: [{ condition: l.conditionFamily, ...priced(winner) }],
      referencePrice: { competitivePriceThreshold: camel(winner.price + winner.shipping) },
    },
  };
}
