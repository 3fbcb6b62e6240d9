import type { Field } from '../fields.js';
import { COMMON } from './common.js';
import { field, objectAt } from './field.js';

// The SellingPartner scope (spec 2.12): the account-level events get the selling connection.
// `selling_partner` and its keys are snake_case, unlike every other context key: historic,
// live automations read it, so it is never renamed (spec 9.5).

const SELLING_PARTNER: readonly Field[] = [
  field('id', 'string', 'local id of the selling connection (target type SellingPartner, connection_status)'),
  field('type', 'string', '"SellingPartner"'),
  field('seller_id', 'string', "the marketplace's seller (merchant) id"),
  field('account_id', 'string', 'the account'),
  field('account_name', 'string', "the account's name"),
  field('marketplaces', 'array', 'marketplaces of the connection'),
  field('marketplaces[].marketplace_id', 'string', 'marketplace id'),
  field('marketplaces[].country_code', 'string', 'two letters'),
  field('marketplaces[].currency', 'string', 'currency code'),
  field('marketplaces[].participating', 'boolean', 'the seller sells there now'),
];

export const SELLING_PARTNER_CONTEXT: readonly Field[] = [
  ...objectAt('selling_partner', 'the selling connection (snake_case keys)', SELLING_PARTNER),
  ...COMMON,
];
