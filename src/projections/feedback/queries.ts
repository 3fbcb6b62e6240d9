import type { FeedbackEvent, FeedbackKind } from '../../domain/feedback/events.js';
import type { Knex } from '../../infra/db.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { FEEDBACK_TABLE } from './projection.js';

export type FeedbackRow = FeedbackEvent['data'];

/** Feedback newest first, of one kind or both, submitted at or after `since`. */
export async function listFeedback(
  db: Knex,
  filter: { kind?: FeedbackKind; since?: string; limit: number },
): Promise<FeedbackRow[]> {
  const query = db
    .withSchema(READ_MODEL_SCHEMA)
    .table(FEEDBACK_TABLE)
    .select(
      ['feedback_id', 'kind', 'user_id', 'title', 'what_happened', 'expected', 'tool_name', 'detail'],
      db.raw(`to_json(submitted_at) #>> '{}' as submitted_at`),
    )
    .orderBy(`${FEEDBACK_TABLE}.submitted_at`, 'desc')
    .orderBy('feedback_id')
    .limit(filter.limit);
  if (filter.kind) query.where({ kind: filter.kind });
  if (filter.since) query.where('submitted_at', '>=', filter.since);
  return (await query) as FeedbackRow[];
}
