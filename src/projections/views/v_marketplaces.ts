import { MARKETPLACES } from '../../domain/shared/marketplaces.js';
import type { ViewDefinition } from './definition.js';
import { column } from './shared.js';

// Reference data (src/domain/shared/marketplaces.ts): no account, no read model.

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
    column(
      'marketplace_id',
      'text',
      false,
      "the marketplace's id, e.g. ATVPDKIKX0DER; every other view's marketplace_id",
    ),
    column('name', 'text', false, 'the marketplace name, e.g. Amazon.com'),
    column('country_code', 'text', false, 'ISO 3166-1 alpha-2 country code (GB for the United Kingdom)'),
    column('domain_name', 'text', false, 'the storefront domain, e.g. www.amazon.com'),
    column('currency', 'text', false, 'ISO 4217 code of the currency money is kept in on this marketplace'),
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
  ${MARKETPLACES.map((m) => `(${[m.id, m.name, m.countryCode, m.domainName, m.currency].map(literal).join(', ')})`).join(',\n  ')}
) as m(marketplace_id, name, country_code, domain_name, currency)`,
};
