import { feedbackEventSchemas, type FeedbackEvent } from '../../domain/feedback/events.js';
import { eventProjection } from '../tables.js';

// Bug reports and ideas as operators read them (`npm run cli -- feedback list`): one row each.

export const FEEDBACK_TABLE = 'feedback';

export const feedbackProjection = eventProjection<FeedbackEvent>({
  name: 'feedback',
  version: 1,
  events: feedbackEventSchemas,
  tables: {
    [FEEDBACK_TABLE]: {
      columns: {
        feedback_id: 'uuid primary',
        kind: 'text',
        user_id: 'uuid',
        title: 'text',
        what_happened: 'text null',
        expected: 'text null',
        tool_name: 'text null',
        detail: 'text null',
        submitted_at: 'timestamptz index',
      },
    },
  },
  async apply(trx, event, _recorded, schema) {
    await trx.withSchema(schema).table(FEEDBACK_TABLE).insert(event.data).onConflict('feedback_id').ignore();
  },
});
