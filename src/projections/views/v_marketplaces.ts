import { MARKETPLACES } from '../../domain/shared/marketplaces.js';
import { viewCatalogue } from './catalogue.js';
import type { ViewDefinition } from './definition.js';
import catalogue from './v_marketplaces.json' with { type: 'json' };

// Reference data (src/domain/shared/marketplaces.ts): no account, no read model.

// The values are ours and contain no quote; the check keeps it that way.
const literal = (s: string) => {
  if (!/^[A-Za-z0-9. ]+$/.test(s)) throw new Error(`unexpected character in marketplace value ${JSON.stringify(s)}`);
  return `'${s}'`;
};

export const vMarketplaces: ViewDefinition = {
  ...viewCatalogue(catalogue),
  sql: `select m.marketplace_id, m.name, m.country_code, m.domain_name, m.currency
from (values
  ${MARKETPLACES.map((m) => `(${[m.id, m.name, m.countryCode, m.domainName, m.currency].map(literal).join(', ')})`).join(',\n  ')}
) as m(marketplace_id, name, country_code, domain_name, currency)`,
};
