import type { ViewDefinition } from './definition.js';

// The marketplaces the selling API serves, with their real ids, as the selling API names
// them (country GB for the United Kingdom). Reference data: no account, no read model.
const MARKETPLACES: ReadonlyArray<readonly [id: string, name: string, country: string, domain: string, currency: string]> = [
  ['A2EUQ1WTGCTBG2', 'Amazon.ca', 'CA', 'www.amazon.ca', 'CAD'],
  ['ATVPDKIKX0DER', 'Amazon.com', 'US', 'www.amazon.com', 'USD'],
  ['A1AM78C64UM0Y8', 'Amazon.com.mx', 'MX', 'www.amazon.com.mx', 'MXN'],
  ['A2Q3Y263D00KWC', 'Amazon.com.br', 'BR', 'www.amazon.com.br', 'BRL'],
  ['A28R8C7NBKEWEA', 'Amazon.ie', 'IE', 'www.amazon.ie', 'EUR'],
  ['A1RKKUPIHCS9HS', 'Amazon.es', 'ES', 'www.amazon.es', 'EUR'],
  ['A1F83G8C2ARO7P', 'Amazon.co.uk', 'GB', 'www.amazon.co.uk', 'GBP'],
  ['A13V1IB3VIYZZH', 'Amazon.fr', 'FR', 'www.amazon.fr', 'EUR'],
  ['AMEN7PMS3EDWL', 'Amazon.com.be', 'BE', 'www.amazon.com.be', 'EUR'],
  ['A1805IZSGTT6HS', 'Amazon.nl', 'NL', 'www.amazon.nl', 'EUR'],
  ['A1PA6795UKMFR9', 'Amazon.de', 'DE', 'www.amazon.de', 'EUR'],
  ['APJ6JRA9NG5V4', 'Amazon.it', 'IT', 'www.amazon.it', 'EUR'],
  ['A2NODRKZP88ZB9', 'Amazon.se', 'SE', 'www.amazon.se', 'SEK'],
  ['AE08WJ6YKNBMC', 'Amazon.co.za', 'ZA', 'www.amazon.co.za', 'ZAR'],
  ['A1C3SOZRARQ6R3', 'Amazon.pl', 'PL', 'www.amazon.pl', 'PLN'],
  ['ARBP9OOSHTCHU', 'Amazon.eg', 'EG', 'www.amazon.eg', 'EGP'],
  ['A33AVAJ2PDY3EV', 'Amazon.com.tr', 'TR', 'www.amazon.com.tr', 'TRY'],
  ['A17E79C6D8DWNP', 'Amazon.sa', 'SA', 'www.amazon.sa', 'SAR'],
  ['A2VIGQ35RCS4UG', 'Amazon.ae', 'AE', 'www.amazon.ae', 'AED'],
  ['A21TJRUUN4KGV', 'Amazon.in', 'IN', 'www.amazon.in', 'INR'],
  ['A19VAU5U5O7RUS', 'Amazon.sg', 'SG', 'www.amazon.sg', 'SGD'],
  ['A39IBJ37TRP1C6', 'Amazon.com.au', 'AU', 'www.amazon.com.au', 'AUD'],
  ['A1VC38T7YXB528', 'Amazon.co.jp', 'JP', 'www.amazon.co.jp', 'JPY'],
];

// The values are ours and contain no quote; the check keeps it that way.
const literal = (s: string) => {
  if (!/^[A-Za-z0-9. ]+$/.test(s)) throw new Error(`unexpected character in marketplace value ${JSON.stringify(s)}`);
  return `'${s}'`;
};

export const vMarketplaces: ViewDefinition = {
  name: 'v_marketplaces',
  audience: 'reference',
  grain: 'one row per marketplace (23 rows)',
  columns: [
    { name: 'marketplace_id', type: 'text', unit: null, nullable: false, description: "the marketplace's id, e.g. ATVPDKIKX0DER; every other view's marketplace_id" },
    { name: 'name', type: 'text', unit: null, nullable: false, description: 'the marketplace name, e.g. Amazon.com' },
    { name: 'country_code', type: 'text', unit: null, nullable: false, description: 'ISO 3166-1 alpha-2 country code (GB for the United Kingdom)' },
    { name: 'domain_name', type: 'text', unit: null, nullable: false, description: 'the storefront domain, e.g. www.amazon.com' },
    { name: 'currency', type: 'text', unit: null, nullable: false, description: 'ISO 4217 code of the currency money is kept in on this marketplace' },
  ],
  freshness: 'static reference data; changes only with a service release',
  joins: [],
  warnings: [
    'Money in every view is in minor units of the currency: divide by 100 for most currencies, but JPY has no subunit (1 = 1 yen).',
    'Several marketplaces share EUR; still never sum money across currencies.',
  ],
  dateColumn: null,
  sql: `select m.marketplace_id, m.name, m.country_code, m.domain_name, m.currency
from (values
  ${MARKETPLACES.map((row) => `(${row.map(literal).join(', ')})`).join(',\n  ')}
) as m(marketplace_id, name, country_code, domain_name, currency)`,
};
