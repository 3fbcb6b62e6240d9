import { OUTCOMES } from '../../../domain/mutation/events.js';
import type { Field } from '../fields.js';
import { field, listAt, maybe } from './field.js';

// What every context carries (spec 4.11.6, 2.13, 2.14), and the receipt rows (spec 2.9) that
// `mutations` lists on each target, in the context's camelCase.

export const RECEIPT: readonly Field[] = [
  field('id', 'string', 'receipt id (get_mutation)'),
  field('action', 'string', 'update, archive, create_campaign, create_ad_group, create_ad or create_target'),
  field('status', 'string', 'queued, submitting, submitted, uncertain, blocked or unresolved'),
  maybe('outcome', 'string', `${OUTCOMES.join(', ')}; null until a result`),
  maybe(
    'accepted',
    'boolean',
    'true once the marketplace accepted it for processing (not an observed result); null while unknown',
  ),
  maybe('httpStatus', 'number', 'HTTP status of the provider call; a 207 can hold rejections: read outcome'),
  maybe('response', 'object', 'raw provider response'),
  maybe('error', 'object', '{ code, message }: the provider or validation error'),
  maybe('requestId', 'string', 'request id of the call that carried it'),
  maybe('submissionId', 'string', 'listing patches: the submission id'),
  maybe('recordedAt', 'string', 'when the result was recorded (ISO 8601)'),
  field('targetType', 'string', 'the target type; for a creation the parent'),
  field('targetId', 'string', 'the target id; for a creation the parent, never the child'),
  maybe(
    'created',
    'object',
    '{ type, id, providerId } once the marketplace confirmed a creation; always null on a listing',
  ),
  field(
    'reconciliation',
    'object',
    '{ result, attempts, checkedAt, nextAt, candidates, cause }; empty when never in doubt',
  ),
  field('payload', 'object', 'the immutable payload as queued'),
];

/** A target's `mutations`: its queued, submitting and uncertain receipts plus the latest settled one, oldest first. */
export const receiptsAt = (
  path: string,
  what = 'its queued, submitting and uncertain receipts plus the latest settled one, oldest first',
): Field[] => listAt(path, what, RECEIPT);

export const COMMON: readonly Field[] = [
  field('mutations', 'array', 'the outbox: push { target, action, payload }; read after handle returns (see queueing)'),
  field('webhooks', 'object', 'one entry per enabled webhook, keyed by its name; {} when none'),
  field(
    'webhooks.<name>.post',
    'function',
    'post(payload): queues a POST of the JSON payload; a string is sent as { "text": <string> }',
  ),
  field(
    'store',
    'object',
    'per-automation key/value store; values expire 7 days after written; a dry run gets an empty one',
  ),
  field('store.get', 'function', 'get(key): the stored JSON value, null when missing'),
  field('store.set', 'function', 'set(key, value): stores a JSON-serializable value'),
  field('store.delete', 'function', 'delete(key): removes it at once'),
];
