import type { MarketplaceParticipation } from '../clients/selling-types.js';

// The marketplaces the fictional seller sells in, with Amazon's real ids. The selling API
// names the United Kingdom GB; the ads API's profiles call it UK. The ads API gives DE
// profiles the Europe/Paris time zone.
export interface SimMarketplace {
  id: string;
  countryCode: string;
  adsCountryCode: string;
  name: string;
  currencyCode: string;
  languageCode: string;
  domainName: string;
  timezone: string;
}

export const MARKETPLACES: readonly SimMarketplace[] = [
  {
    id: 'ATVPDKIKX0DER',
    countryCode: 'US',
    adsCountryCode: 'US',
    name: 'Amazon.com',
    currencyCode: 'USD',
    languageCode: 'en_US',
    domainName: 'www.amazon.com',
    timezone: 'America/Los_Angeles',
  },
  {
    id: 'A2EUQ1WTGCTBG2',
    countryCode: 'CA',
    adsCountryCode: 'CA',
    name: 'Amazon.ca',
    currencyCode: 'CAD',
    languageCode: 'en_CA',
    domainName: 'www.amazon.ca',
    timezone: 'America/Los_Angeles',
  },
  {
    id: 'A1F83G8C2ARO7P',
    countryCode: 'GB',
    adsCountryCode: 'UK',
    name: 'Amazon.co.uk',
    currencyCode: 'GBP',
    languageCode: 'en_GB',
    domainName: 'www.amazon.co.uk',
    timezone: 'Europe/London',
  },
  {
    id: 'A1PA6795UKMFR9',
    countryCode: 'DE',
    adsCountryCode: 'DE',
    name: 'Amazon.de',
    currencyCode: 'EUR',
    languageCode: 'de_DE',
    domainName: 'www.amazon.de',
    timezone: 'Europe/Paris',
  },
  {
    id: 'A1VC38T7YXB528',
    countryCode: 'JP',
    adsCountryCode: 'JP',
    name: 'Amazon.co.jp',
    currencyCode: 'JPY',
    languageCode: 'ja_JP',
    domainName: 'www.amazon.co.jp',
    timezone: 'Asia/Tokyo',
  },
];

/** The sellers API's participation of a store in marketplace m. */
export const participationIn = (
  m: SimMarketplace,
  storeName: string,
  hasSuspendedListings: boolean,
): MarketplaceParticipation => ({
  marketplace: {
    id: m.id,
    countryCode: m.countryCode,
    name: m.name,
    defaultCurrencyCode: m.currencyCode,
    defaultLanguageCode: m.languageCode,
    domainName: m.domainName,
  },
  participation: { isParticipating: true, hasSuspendedListings },
  storeName,
});
