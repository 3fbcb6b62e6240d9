import { backtestEventSchemas, type BacktestEvent } from '../../domain/backtest/events.js';
import { backtestDecider } from '../../domain/backtest/decide.js';
import { eventProjection } from '../tables.js';

// Backtests as retention finds them (a backtest reads its own stream for everything else): when
// each was requested and when it ended.

export const BACKTESTS_TABLE = 'backtests';
const STREAM_PREFIX = `${backtestDecider.aggregate}-`;

export const backtestsProjection = eventProjection<BacktestEvent>({
  name: 'backtests',
  version: 1,
  events: backtestEventSchemas,
  tables: {
    [BACKTESTS_TABLE]: {
      columns: {
        backtest_id: 'uuid primary',
        user_id: 'text',
        requested_at: 'timestamptz',
        finished_at: 'timestamptz null',
        // the time retention counts from: the end, or the request while it has none
        kept_from: 'timestamptz index',
      },
    },
  },
  async apply(trx, event, recorded, schema) {
    const table = () => trx.withSchema(schema).table(BACKTESTS_TABLE);
    if (event.type === 'BacktestRequested') {
      const { backtest_id, user_id, requested_at } = event.data;
      await table()
        .insert({ backtest_id, user_id, requested_at, finished_at: null, kept_from: requested_at })
        .onConflict('backtest_id')
        .ignore();
    } else if (event.type === 'BacktestFinished') {
      const backtest_id = recorded.streamId.slice(STREAM_PREFIX.length);
      await table().where({ backtest_id }).update({ finished_at: event.data.at, kept_from: event.data.at });
    }
  },
});
