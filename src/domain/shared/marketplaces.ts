// The marketplaces the selling API serves, with their real ids, as the selling API names them
// (country GB for the United Kingdom), and the time zone whose calendar days sales windows use.

export interface Marketplace {
  id: string;
  name: string;
  countryCode: string;
  domainName: string;
  currency: string;
  timeZone: string;
}

const row = (
  id: string,
  name: string,
  countryCode: string,
  domainName: string,
  currency: string,
  timeZone: string,
): Marketplace => ({
  id,
  name,
  countryCode,
  domainName,
  currency,
  timeZone,
});

export const MARKETPLACES: readonly Marketplace[] = [
  row('A2EUQ1WTGCTBG2', 'Amazon.ca', 'CA', 'www.amazon.ca', 'CAD', 'America/Los_Angeles'),
  row('ATVPDKIKX0DER', 'Amazon.com', 'US', 'www.amazon.com', 'USD', 'America/Los_Angeles'),
  row('A1AM78C64UM0Y8', 'Amazon.com.mx', 'MX', 'www.amazon.com.mx', 'MXN', 'America/Los_Angeles'),
  row('A2Q3Y263D00KWC', 'Amazon.com.br', 'BR', 'www.amazon.com.br', 'BRL', 'America/Sao_Paulo'),
  row('A28R8C7NBKEWEA', 'Amazon.ie', 'IE', 'www.amazon.ie', 'EUR', 'Europe/Dublin'),
  row('A1RKKUPIHCS9HS', 'Amazon.es', 'ES', 'www.amazon.es', 'EUR', 'Europe/Paris'),
  row('A1F83G8C2ARO7P', 'Amazon.co.uk', 'GB', 'www.amazon.co.uk', 'GBP', 'Europe/London'),
  row('A13V1IB3VIYZZH', 'Amazon.fr', 'FR', 'www.amazon.fr', 'EUR', 'Europe/Paris'),
  row('AMEN7PMS3EDWL', 'Amazon.com.be', 'BE', 'www.amazon.com.be', 'EUR', 'Europe/Paris'),
  row('A1805IZSGTT6HS', 'Amazon.nl', 'NL', 'www.amazon.nl', 'EUR', 'Europe/Paris'),
  row('A1PA6795UKMFR9', 'Amazon.de', 'DE', 'www.amazon.de', 'EUR', 'Europe/Paris'),
  row('APJ6JRA9NG5V4', 'Amazon.it', 'IT', 'www.amazon.it', 'EUR', 'Europe/Paris'),
  row('A2NODRKZP88ZB9', 'Amazon.se', 'SE', 'www.amazon.se', 'SEK', 'Europe/Paris'),
  row('AE08WJ6YKNBMC', 'Amazon.co.za', 'ZA', 'www.amazon.co.za', 'ZAR', 'Africa/Johannesburg'),
  row('A1C3SOZRARQ6R3', 'Amazon.pl', 'PL', 'www.amazon.pl', 'PLN', 'Europe/Paris'),
  row('ARBP9OOSHTCHU', 'Amazon.eg', 'EG', 'www.amazon.eg', 'EGP', 'Africa/Cairo'),
  row('A33AVAJ2PDY3EV', 'Amazon.com.tr', 'TR', 'www.amazon.com.tr', 'TRY', 'Europe/Istanbul'),
  row('A17E79C6D8DWNP', 'Amazon.sa', 'SA', 'www.amazon.sa', 'SAR', 'Asia/Riyadh'),
  row('A2VIGQ35RCS4UG', 'Amazon.ae', 'AE', 'www.amazon.ae', 'AED', 'Asia/Dubai'),
  row('A21TJRUUN4KGV', 'Amazon.in', 'IN', 'www.amazon.in', 'INR', 'Asia/Kolkata'),
  row('A19VAU5U5O7RUS', 'Amazon.sg', 'SG', 'www.amazon.sg', 'SGD', 'Asia/Singapore'),
  row('A39IBJ37TRP1C6', 'Amazon.com.au', 'AU', 'www.amazon.com.au', 'AUD', 'Australia/Sydney'),
  row('A1VC38T7YXB528', 'Amazon.co.jp', 'JP', 'www.amazon.co.jp', 'JPY', 'Asia/Tokyo'),
];

const byId = new Map(MARKETPLACES.map((m) => [m.id, m]));

export const marketplaceById = (id: string): Marketplace | undefined => byId.get(id);
