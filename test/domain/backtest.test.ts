import { backtestDecider, backtestSlotDecider } from '../../src/domain/backtest/decide.js';
import type { BacktestEvent, BacktestRequestedData, BacktestSlotEvent } from '../../src/domain/backtest/events.js';
import { BACKTEST_LIMITS } from '../../src/domain/backtest/limits.js';
import { given } from '../support/gwt.js';

// A backtest's record and its user's slot (docs/decisions/120, 121).

const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';
const OTHER = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const request: BacktestRequestedData = {
  backtest_id: ID,
  user_id: 'user-1',
  account_id: 'a3bb189e-8bf9-4888-9912-ace4e6543002',
  automation_id: null,
  automation_version: 1,
  code: 'function handle() {}',
  stream_type: 'ANY_OFFER_CHANGED',
  since: '2026-05-01T00:00:00.000Z',
  until: '2026-05-31T00:00:00.000Z',
  requested_at: '2026-05-31T00:00:00.000Z',
};
const requested: BacktestEvent = { type: 'BacktestRequested', data: request };
const finished: BacktestEvent = {
  type: 'BacktestFinished',
  data: { status: 'failed', result: null, error: 'boom', at: '2026-05-31T00:01:00.000Z' },
};
const at = '2026-05-31T00:00:30.000Z';

describe('backtest decider', () => {
  it('is requested once', () => {
    given(backtestDecider, []).when({ type: 'Request', request }).then([requested]);
    given(backtestDecider, [requested]).when({ type: 'Request', request }).thenThrows('conflict');
  });

  it('records progress and a cancellation (once) while it runs', () => {
    given(backtestDecider, [requested])
      .when({ type: 'Progress', done: 5, total: 10, at })
      .then([{ type: 'BacktestProgressed', data: { done: 5, total: 10, at } }]);
    given(backtestDecider, [requested])
      .when({ type: 'Cancel', at })
      .then([{ type: 'BacktestCancelRequested', data: { at } }]);
    given(backtestDecider, [requested, { type: 'BacktestCancelRequested', data: { at } }])
      .when({ type: 'Cancel', at })
      .then([]);
  });

  it('ends once; after the end nothing is recorded', () => {
    given(backtestDecider, [requested])
      .when({ type: 'Finish', status: 'failed', result: null, error: 'boom', at: finished.data.at })
      .then([finished]);
    given(backtestDecider, [requested, finished]).when({ type: 'Cancel', at }).then([]);
    given(backtestDecider, [requested, finished]).when({ type: 'Progress', done: 1, total: 1, at }).then([]);
    given(backtestDecider, [requested, finished])
      .when({ type: 'Finish', status: 'completed', result: null, error: null, at })
      .then([]);
  });

  it('knows no progress or cancellation of a backtest never requested', () => {
    given(backtestDecider, []).when({ type: 'Cancel', at }).thenThrows('not_found');
  });
});

describe('backtest slot decider', () => {
  const taken = (backtest_id: string, day = '2026-05-31'): BacktestSlotEvent => ({
    type: 'BacktestSlotTaken',
    data: { backtest_id, day },
  });
  const freed = (backtest_id: string): BacktestSlotEvent => ({ type: 'BacktestSlotFreed', data: { backtest_id } });

  it('one at a time: busy while one runs, free again once it ended or its worker died after ending it', () => {
    given(backtestSlotDecider, [])
      .when({ type: 'Take', backtest_id: ID, at, runningEnded: false })
      .then([taken(ID)]);
    given(backtestSlotDecider, [taken(ID)])
      .when({ type: 'Take', backtest_id: OTHER, at, runningEnded: false })
      .thenThrows('busy', /still running/);
    given(backtestSlotDecider, [taken(ID)])
      .when({ type: 'Take', backtest_id: OTHER, at, runningEnded: true })
      .then([taken(OTHER)]);
    given(backtestSlotDecider, [taken(ID), freed(ID)])
      .when({ type: 'Take', backtest_id: OTHER, at, runningEnded: false })
      .then([taken(OTHER)]);
  });

  it('frees only the backtest holding it', () => {
    given(backtestSlotDecider, [taken(ID)])
      .when({ type: 'Free', backtest_id: OTHER })
      .then([]);
    given(backtestSlotDecider, [taken(ID)])
      .when({ type: 'Free', backtest_id: ID })
      .then([freed(ID)]);
  });

  it('a daily quota per UTC day, with the seconds to midnight', () => {
    const day = Array.from({ length: BACKTEST_LIMITS.perDay }, () => [taken(ID), freed(ID)]).flat();
    const refused = given(backtestSlotDecider, day)
      .when({ type: 'Take', backtest_id: OTHER, at: '2026-05-31T23:59:00.000Z', runningEnded: false })
      .thenThrows('rate_limited', /20 backtests per UTC day/);
    if (refused.extra.retry_after_seconds !== 60)
      throw new Error(`retry_after_seconds ${refused.extra.retry_after_seconds}`);
    given(backtestSlotDecider, day)
      .when({ type: 'Take', backtest_id: OTHER, at: '2026-06-01T00:00:01.000Z', runningEnded: false })
      .then([taken(OTHER, '2026-06-01')]);
  });
});
