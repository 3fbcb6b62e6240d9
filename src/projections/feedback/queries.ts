import type { FeedbackKind } from '../../domain/feedback/events.js';
import type { Knex } from '../../infra/db.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { FEEDBACK_TABLE } from './projection.js';

export interface FeedbackRow {
  feedback_id: string;
  kind: FeedbackKind;
  user_id: string;
  title: string;
  what_happened: string | null;
  expected: string | null;
  tool_name: string | null;
  detail: string | null;
  submitted_at: string;
}

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
      db.raw(`to_json(submitted_at) #>> '{}' as submitted`),
    )
    .orderBy(`${FEEDBACK_TABLE}.submitted_at`, 'desc')
    .orderBy('feedback_id')
    .limit(filter.limit);
  if (filter.kind) query.where({ kind: filter.kind });
  if (filter.since) query.where('submitted_at', '>=', filter.since);
  const rows = (await query) as Array<Omit<FeedbackRow, 'submitted_at'> & { submitted: string }>;
  return rows.map(({ submitted, ...r }) => ({ ...r, submitted_at: submitted }));
}
