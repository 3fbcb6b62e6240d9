import { AS_SENT, each, type Notes } from '../fields.js';
import { SAMPLE, sellingEvent, type EventContract } from './envelope.js';

// The offer notifications: ANY_OFFER_CHANGED, B2B_ANY_OFFER_CHANGED (PascalCase) and
// PRICING_HEALTH (camelCase). Prices are the marketplace's `Amount` in major units with the
// currency beside it, unconverted.

const money = (amount: number) => ({ Amount: amount, CurrencyCode: SAMPLE.currency });
const camelMoney = (amount: number) => ({ amount, currencyCode: SAMPLE.currency });
const prices = (listing: number, shipping: number) => ({
  LandedPrice: money(listing + shipping),
  ListingPrice: money(listing),
  Shipping: money(shipping),
});
const priceNotes = (at: string): Notes =>
  each(
    ['LandedPrice.Amount', 'ListingPrice.Amount', 'Shipping.Amount'].map((k) => `${at}.${k}`),
    { unit: AS_SENT },
  );

const offer = (sellerId: string, price: number, fba: boolean, winner: boolean) => ({
  SellerId: sellerId,
  SubCondition: 'new',
  SellerFeedbackRating: { FeedbackCount: 1000, SellerPositiveFeedbackRating: 98 },
  ShippingTime: { MinimumHours: fba ? 0 : 24, MaximumHours: fba ? 24 : 48, AvailabilityType: 'NOW' },
  ListingPrice: money(price),
  Shipping: money(0),
  IsFulfilledByAmazon: fba,
  IsBuyBoxWinner: winner,
  IsFeaturedMerchant: true,
});
const COMPETITOR = 'A6GRAAGCL1GIT4';
const offers = [offer(SAMPLE.sellerId, 45.99, true, true), offer(COMPETITOR, 46.96, false, false)];
const counts = [
  { Condition: 'new', FulfillmentChannel: 'Amazon', OfferCount: 1 },
  { Condition: 'new', FulfillmentChannel: 'Merchant', OfferCount: 1 },
];
const trigger = {
  MarketplaceId: SAMPLE.marketplaceId,
  ASIN: SAMPLE.asin,
  ItemCondition: 'New',
  TimeOfOfferChange: SAMPLE.at,
};
const offerRowNotes = (at: string): Notes => ({
  [at]: { description: 'up to 20 offers: yours (SellerId is your seller id) and competitors' },
  [`${at}[].ListingPrice.Amount`]: { unit: AS_SENT },
  [`${at}[].Shipping.Amount`]: { unit: AS_SENT },
  [`${at}[].SellerFeedbackRating.SellerPositiveFeedbackRating`]: { unit: 'percent 0-100' },
});

export const anyOfferChanged: EventContract = sellingEvent(
  'ANY_OFFER_CHANGED',
  '1.0',
  {
    AnyOfferChangedNotification: {
      SellerId: SAMPLE.sellerId,
      OfferChangeTrigger: { ...trigger, OfferChangeType: 'External' },
      Summary: {
        NumberOfOffers: counts,
        LowestPrices: [{ Condition: 'new', FulfillmentChannel: 'Amazon', ...prices(45.99, 0) }],
        BuyBoxPrices: [{ Condition: 'new', ...prices(45.99, 0) }],
        TotalBuyBoxEligibleOffers: 2,
        NumberOfBuyBoxEligibleOffers: counts,
        CompetitivePriceThreshold: money(45.99),
      },
      Offers: offers,
    },
  },
  {
    'AnyOfferChangedNotification.OfferChangeTrigger.ASIN': { description: 'the ASIN whose offers changed' },
    'AnyOfferChangedNotification.OfferChangeTrigger.OfferChangeType': {
      description: 'External (a price outside the marketplace), Internal, Featured or ...',
    },
    'AnyOfferChangedNotification.Summary.CompetitivePriceThreshold': {
      optional: true,
      description: 'the landed price below which an offer keeps Buy Box eligibility; absent when none',
    },
    'AnyOfferChangedNotification.Summary.CompetitivePriceThreshold.Amount': { unit: AS_SENT },
    ...priceNotes('AnyOfferChangedNotification.Summary.LowestPrices[]'),
    ...priceNotes('AnyOfferChangedNotification.Summary.BuyBoxPrices[]'),
    ...offerRowNotes('AnyOfferChangedNotification.Offers'),
  },
);

const tier = { OfferType: 'B2B', QuantityTier: 1 };

export const b2bAnyOfferChanged: EventContract = sellingEvent(
  'B2B_ANY_OFFER_CHANGED',
  '1.0',
  {
    B2BAnyOfferChangedNotification: {
      SellerId: SAMPLE.sellerId,
      OfferChangeTrigger: trigger,
      Summary: {
        NumberOfOffers: counts,
        BuyBoxEligibleOffers: counts,
        LowestPrices: [{ Condition: 'new', FulfillmentChannel: 'Amazon', ...tier, ...prices(43.5, 0) }],
        BuyBoxPrices: [{ Condition: 'new', ...tier, ...prices(43.5, 0), SellerId: SAMPLE.sellerId }],
      },
      Offers: offers,
    },
  },
  {
    'B2BAnyOfferChangedNotification.Summary.LowestPrices[].QuantityTier': {
      description: 'the quantity the price applies from (quantity-discount tiers)',
    },
    ...priceNotes('B2BAnyOfferChangedNotification.Summary.LowestPrices[]'),
    ...priceNotes('B2BAnyOfferChangedNotification.Summary.BuyBoxPrices[]'),
    ...offerRowNotes('B2BAnyOfferChangedNotification.Offers'),
  },
);

const priced = (listing: number) => ({
  listingPrice: camelMoney(listing),
  shipping: camelMoney(0),
  landedPrice: camelMoney(listing),
});
const pricedNotes = (at: string): Notes =>
  each(
    ['listingPrice.amount', 'shipping.amount', 'landedPrice.amount'].map((k) => `${at}.${k}`),
    { unit: AS_SENT },
  );
const healthCounts = [{ condition: 'new', fulfillmentType: 'AFN', offerCount: 2 }];

export const pricingHealth: EventContract = sellingEvent(
  'PRICING_HEALTH',
  '1.0',
  {
    issueType: 'BuyBoxDisqualification',
    sellerId: SAMPLE.sellerId,
    offerChangeTrigger: {
      marketplaceId: SAMPLE.marketplaceId,
      asin: SAMPLE.asin,
      itemCondition: 'new',
      timeOfOfferChange: SAMPLE.at,
    },
    merchantOffer: { condition: 'new', fulfillmentType: 'AFN', ...priced(47.5) },
    summary: {
      numberOfOffers: healthCounts,
      buyBoxEligibleOffers: healthCounts,
      buyBoxPrices: [{ condition: 'new', ...priced(45.99) }],
      referencePrice: { competitivePriceThreshold: camelMoney(45.99) },
    },
  },
  {
    issueType: { description: 'BuyBoxDisqualification: your offer lost Buy Box eligibility on price' },
    merchantOffer: { description: 'your offer as the marketplace priced it' },
    'merchantOffer.fulfillmentType': { description: 'AFN (Amazon fulfils) or MFN (you do)' },
    ...pricedNotes('merchantOffer'),
    ...pricedNotes('summary.buyBoxPrices[]'),
    'summary.referencePrice.competitivePriceThreshold.amount': {
      unit: AS_SENT,
      description: 'price at or below which the offer is eligible again',
    },
  },
);
