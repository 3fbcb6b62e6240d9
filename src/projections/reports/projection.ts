import { isOutstanding, reportDecider, type ReportState } from '../../domain/report/decide.js';
import { reportEventSchemas, type ReportEvent } from '../../domain/report/events.js';
import { eventProjection } from '../tables.js';

// Report receipts (spec 2.11): each request's state as its decider folds it, with the columns the
// outstanding limit and the worker's sweep look rows up by.

export const REPORTS_TABLE = 'report_requests';

export const reportsProjection = eventProjection<ReportEvent>({
  name: 'reports',
  version: 1,
  events: reportEventSchemas,
  tables: {
    [REPORTS_TABLE]: {
      columns: {
        mutation_id: 'uuid primary',
        account_id: 'uuid index',
        /** whose limit it counts against: `user:<id>` or `automation:<id>` */
        namespace: 'text',
        /** admitted and not yet finalized */
        outstanding: 'boolean',
        /** the worker has work left: until the completion event is recorded */
        work_due: 'boolean',
        state: 'jsonb',
        updated_at: 'timestamptz',
      },
      // the outstanding limit counts by namespace; the worker's sweep reads the outstanding ones
      indexes: [['namespace', 'outstanding'], ['work_due']],
    },
  },
  async apply(trx, event, recorded, schema) {
    const table = () => trx.withSchema(schema).table(REPORTS_TABLE);
    const id = event.type === 'ReportRequested' ? event.data.mutation_id : null;
    const row = id
      ? null
      : await table()
          .where({ mutation_id: mutationIdOf(recorded.streamId) })
          .first<{ state: ReportState } | undefined>('state');
    if (!id && !row) return;
    const state = reportDecider.evolve(row?.state ?? reportDecider.initialState(), event);
    const r = state.requested!;
    await table()
      .insert({
        mutation_id: r.mutation_id,
        account_id: r.account_id,
        namespace: r.namespace,
        outstanding: isOutstanding(state),
        work_due: !state.completion_recorded,
        state: JSON.stringify(state),
        updated_at: event.data.at,
      })
      .onConflict('mutation_id')
      .merge();
  },
});

const mutationIdOf = (stream: string): string => stream.slice(`${reportDecider.aggregate}-`.length);
