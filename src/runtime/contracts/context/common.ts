import { OUTCOMES } from '../../../domain/mutation/events.js';
import type { Field } from '../fields.js';
import { fieldTables, listAt, maybe } from './field.js';
import tables from './common.json' with { type: 'json' };

// What every context carries (spec 4.11.6, 2.13, 2.14), and the receipt rows (spec 2.9) that
// `mutations` lists on each target, in the context's camelCase.

const T = fieldTables(tables);

/** `outcome` lists the domain's outcomes, so it is written here between the JSON's two parts. */
export const RECEIPT: readonly Field[] = [
  ...T.receipt,
  maybe('outcome', 'string', `${OUTCOMES.join(', ')}; null until a result`),
  ...T.receiptAfterOutcome,
];

/** A target's `mutations`: its queued, submitting and uncertain receipts plus the latest settled one, oldest first. */
export const receiptsAt = (
  path: string,
  what = 'its queued, submitting and uncertain receipts plus the latest settled one, oldest first',
): Field[] => listAt(path, what, RECEIPT);

export const COMMON: readonly Field[] = T.common;
