import type { Field } from '../fields.js';
import { COMMON } from './common.js';
import { fieldTables, objectAt } from './field.js';
import tables from './selling-partner.json' with { type: 'json' };

// The SellingPartner scope (spec 2.12): the account-level events get the selling connection.
// `selling_partner` and its keys are snake_case, unlike every other context key: historic,
// live automations read it, so it is never renamed (spec 9.5).

const T = fieldTables(tables);

export const SELLING_PARTNER_CONTEXT: readonly Field[] = [
  ...objectAt('selling_partner', 'the selling connection (snake_case keys)', T.sellingPartner),
  ...COMMON,
];
