import type { Knex } from 'knex';
import { nativeValidator } from '../../catalog/live-read/parameters.js';
import type { Schema } from '../../catalog/operation.js';
import { findOperation, type CatalogOperation } from '../../catalog/queries.js';
import { isQualifiedAction } from '../../domain/admission/rules.js';
import { DERIVED_FIELDS } from '../../domain/mutation/payloads.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { MutationRequest } from '../admission/target.js';
import { operationUnavailable, pinnedRevision } from './catalog-admission.js';
import { firstIssue } from '../../domain/shared/issues.js';

// Qualified catalog actions in queue_mutations (spec 4.8, 9.3; docs/decisions/109): an `action`
// naming one of the thirteen reviewed Sponsored Products writes by its qualified key, with one
// native request item as its payload. The call pins its catalog_revision and carries an
// idempotency key; each item is checked against its native request schema, then becomes the
// spec 4.8 action it carries out (the operation's review says which), so it is admitted,
// blocked, dispatched and reconciled like any other request.

/** A call with a qualified action: its key and a pinned, current revision, or the error that refuses the whole call. */
export async function checkQualifiedCall(
  db: Knex,
  call: {
    mutations: readonly { action: string }[];
    idempotency_key?: string | undefined;
    catalog_revision?: string | undefined;
  },
): Promise<void> {
  const qualified = call.mutations.findIndex((m) => isQualifiedAction(m.action));
  if (qualified < 0) return;
  for (const argument of ['idempotency_key', 'catalog_revision'] as const)
    if (call[argument] === undefined)
      throw new DomainError(
        'invalid',
        `${argument}: required when a mutation's action is a qualified catalog operation (mutations[${qualified}].action)`,
        { argument },
      );
  await pinnedRevision(db, call.catalog_revision!, 'catalog_revision');
}

/** The native request's item schema: the one array the body holds (`{ campaigns: [item] }`), ids derived from the target made optional. */
function itemSchema(op: CatalogOperation): Schema | null {
  const body = op.request && Object.values(op.request.content)[0];
  const arrays = Object.values((body?.properties ?? {}) as Record<string, Schema>).filter((p) => p.type === 'array');
  const items = arrays.length === 1 ? (arrays[0]!.items as Schema | undefined) : undefined;
  if (!items) return null;
  const derived = [...DERIVED_FIELDS, 'keywordId'];
  return { ...items, required: ((items.required ?? []) as string[]).filter((k) => !derived.includes(k)) };
}

const bidOf = (bid: unknown) => (bid === undefined || bid === null ? {} : { bid: { bid } });

/** Native item keys onto spec 4.8's payload of the same action (targets take the unified shape). */
function translate(operationId: string, item: Record<string, unknown>, at: string): Record<string, unknown> {
  switch (operationId) {
    case 'CreateSponsoredProductsKeywords': {
      const { keywordText, matchType, bid, ...rest } = item;
      return {
        ...rest,
        targetType: 'KEYWORD',
        negative: false,
        targetDetails: { keywordTarget: { keyword: keywordText, matchType } },
        ...bidOf(bid),
      };
    }
    case 'UpdateSponsoredProductsKeywords': {
      const { keywordId, bid, ...rest } = item;
      return { ...rest, ...(keywordId === undefined ? {} : { targetId: keywordId }), ...bidOf(bid) };
    }
    case 'CreateSponsoredProductsTargetingClauses': {
      const { expression, expressionType, bid, ...rest } = item;
      const predicates = (expression ?? []) as { type?: string; value?: string }[];
      const [p] = predicates;
      const kind = {
        ASIN_SAME_AS: 'PRODUCT',
        ASIN_EXPANDED_FROM: 'PRODUCT',
        ASIN_CATEGORY_SAME_AS: 'PRODUCT_CATEGORY',
      }[p?.type ?? ''];
      if (predicates.length !== 1 || !kind || !p?.value || (expressionType ?? 'MANUAL') !== 'MANUAL')
        throw new DomainError(
          'invalid_parameters',
          `${at}.payload.expression: the service queues manual targeting clauses of one ASIN_SAME_AS, ASIN_EXPANDED_FROM or ASIN_CATEGORY_SAME_AS predicate`,
          { argument: `${at}.payload.expression` },
        );
      const targetDetails =
        kind === 'PRODUCT'
          ? {
              productTarget: {
                product: { productId: p.value },
                productIdType: 'ASIN',
                matchType: p.type === 'ASIN_EXPANDED_FROM' ? 'PRODUCT_SIMILAR' : 'PRODUCT_EXACT',
              },
            }
          : { productCategoryTarget: { productCategoryRefinement: { productCategoryId: p.value } } };
      return { ...rest, targetType: kind, negative: false, targetDetails, ...bidOf(bid) };
    }
    case 'UpdateSponsoredProductsTargetingClauses': {
      const { bid, ...rest } = item;
      return { ...rest, ...bidOf(bid) };
    }
    default:
      return item;
  }
}

/**
 * One request whose action is a qualified key, checked against the current catalog and turned
 * into the request of its spec 4.8 action; never throws for the request's own faults.
 */
export async function nativeAction(
  db: Knex,
  request: MutationRequest,
  at: string,
): Promise<{ request: MutationRequest } | { error: DomainError }> {
  try {
    const op = await findOperation(db, request.action);
    if (!op)
      throw new DomainError(
        'invalid',
        `${at}.action: no operation '${request.action}' in the current catalog revision; find one with search_amazon_operations`,
        { argument: `${at}.action` },
      );
    if (op.review !== 'queued_write' || !op.action) throw operationUnavailable(op, `${at}.action`, 'queued_write');
    if (request.target.type !== op.target_type)
      throw new DomainError(
        'invalid',
        `${at}.target.type: '${op.key}' writes on ${op.target_type} targets, not ${request.target.type}`,
        { argument: `${at}.target.type` },
      );
    if (op.action === 'archive') {
      // the native delete names its entity in a filter: here the target does
      if (Object.keys(request.payload).length > 0)
        throw new DomainError(
          'invalid_parameters',
          `${at}.payload: '${op.operationId}' takes an empty object here; the target names the entity to archive (permanently)`,
          { argument: `${at}.payload` },
        );
      return { request: { ...request, action: op.action } };
    }
    const checked = nativeValidator(itemSchema(op)).safeParse(request.payload);
    if (!checked.success) {
      const issue = firstIssue(checked.error.issues);
      const where = [`${at}.payload`, ...issue.path.map(String)].join('.');
      throw new DomainError(
        'invalid_parameters',
        `${where}: ${issue.message} (the native request item of ${op.operationId}; see get_amazon_operation)`,
        { argument: where },
      );
    }
    return { request: { ...request, action: op.action, payload: translate(op.operationId, request.payload, at) } };
  } catch (err) {
    if (err instanceof DomainError) return { error: err };
    throw err;
  }
}
