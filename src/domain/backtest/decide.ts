import { DomainError } from '../shared/errors.js';
import type { Decider } from '../shared/decider.js';
import type { BacktestResult } from './result.js';
import {
  backtestEventSchemas,
  backtestSlotEventSchemas,
  type BacktestEvent,
  type BacktestRequestedData,
  type BacktestSlotEvent,
} from './events.js';
import { BACKTEST_LIMITS } from './limits.js';

// A backtest's life: requested once; progress while it runs; a cancellation asked for (once, and
// only before it ended); ended once. Anything asked after the end records nothing, so a worker that
// runs a job twice after a crash, or a cancel racing the end, is harmless.

export type BacktestStatus = 'queued' | 'running' | 'completed' | 'cancelled' | 'failed';

export type BacktestCommand =
  | { type: 'Request'; request: BacktestRequestedData }
  | { type: 'Progress'; done: number; total: number; at: string }
  | { type: 'Cancel'; at: string }
  | {
      type: 'Finish';
      status: 'completed' | 'cancelled' | 'failed';
      result: BacktestResult | null;
      error: string | null;
      at: string;
    };

export interface BacktestState {
  request: BacktestRequestedData | null;
  status: BacktestStatus | null;
  progress: { done: number; total: number } | null;
  cancelRequested: boolean;
  result: BacktestResult | null;
  error: string | null;
  finishedAt: string | null;
}

const ENDED: readonly (BacktestStatus | null)[] = ['completed', 'cancelled', 'failed'];

export function decide(command: BacktestCommand, state: BacktestState): BacktestEvent[] {
  if (command.type === 'Request') {
    if (state.request) throw new DomainError('conflict', `backtest ${command.request.backtest_id} exists already`);
    return [{ type: 'BacktestRequested', data: command.request }];
  }
  if (!state.request) throw new DomainError('not_found', 'no such backtest');
  if (ENDED.includes(state.status)) return [];
  switch (command.type) {
    case 'Progress':
      return [{ type: 'BacktestProgressed', data: { done: command.done, total: command.total, at: command.at } }];
    case 'Cancel':
      return state.cancelRequested ? [] : [{ type: 'BacktestCancelRequested', data: { at: command.at } }];
    case 'Finish':
      return [
        {
          type: 'BacktestFinished',
          data: { status: command.status, result: command.result, error: command.error, at: command.at },
        },
      ];
  }
}

export function evolve(state: BacktestState, event: BacktestEvent): BacktestState {
  switch (event.type) {
    case 'BacktestRequested':
      return { ...state, request: event.data, status: 'queued' };
    case 'BacktestProgressed':
      return { ...state, status: 'running', progress: { done: event.data.done, total: event.data.total } };
    case 'BacktestCancelRequested':
      return { ...state, cancelRequested: true };
    case 'BacktestFinished':
      return {
        ...state,
        status: event.data.status,
        result: event.data.result,
        error: event.data.error,
        finishedAt: event.data.at,
        progress: event.data.result
          ? { done: event.data.result.totals.events_replayed, total: event.data.result.events_in_window }
          : state.progress,
      };
  }
}

export const backtestDecider: Decider<BacktestCommand, BacktestState, BacktestEvent> = {
  aggregate: 'backtest',
  schemas: backtestEventSchemas,
  initialState: () => ({
    request: null,
    status: null,
    progress: null,
    cancelRequested: false,
    result: null,
    error: null,
    finishedAt: null,
  }),
  evolve,
  decide,
};

// The user's slot: one backtest at a time, BACKTEST_LIMITS.perDay started per UTC day.

export type BacktestSlotCommand =
  /** `runningEnded`: the backtest holding the slot has ended (its worker died before freeing it) */
  { type: 'Take'; backtest_id: string; at: string; runningEnded: boolean } | { type: 'Free'; backtest_id: string };

export interface BacktestSlotState {
  running: string | null;
  day: string | null;
  startedThatDay: number;
}

export function decideSlot(command: BacktestSlotCommand, state: BacktestSlotState): BacktestSlotEvent[] {
  if (command.type === 'Free')
    return state.running === command.backtest_id
      ? [{ type: 'BacktestSlotFreed', data: { backtest_id: command.backtest_id } }]
      : [];
  if (state.running && !command.runningEnded)
    throw new DomainError(
      'busy',
      `backtest ${state.running} of yours is still running; read it or cancel it with backtest_automation { backtest_id, cancel: true }`,
      { backtest_id: state.running, retry_after_seconds: 10 },
    );
  const day = command.at.slice(0, 10);
  if (state.day === day && state.startedThatDay >= BACKTEST_LIMITS.perDay) {
    const midnight = Date.parse(`${day}T00:00:00Z`) + 86_400_000;
    const seconds = Math.max(1, Math.ceil((midnight - Date.parse(command.at)) / 1000));
    throw new DomainError(
      'rate_limited',
      `${BACKTEST_LIMITS.perDay} backtests per UTC day: the quota of ${day} is used; retry in ${seconds} seconds`,
      { retry_after_seconds: seconds },
    );
  }
  return [{ type: 'BacktestSlotTaken', data: { backtest_id: command.backtest_id, day } }];
}

export function evolveSlot(state: BacktestSlotState, event: BacktestSlotEvent): BacktestSlotState {
  if (event.type === 'BacktestSlotFreed') return { ...state, running: null };
  const sameDay = state.day === event.data.day;
  return {
    running: event.data.backtest_id,
    day: event.data.day,
    startedThatDay: sameDay ? state.startedThatDay + 1 : 1,
  };
}

export const backtestSlotDecider: Decider<BacktestSlotCommand, BacktestSlotState, BacktestSlotEvent> = {
  aggregate: 'backtest-slot',
  schemas: backtestSlotEventSchemas,
  initialState: () => ({ running: null, day: null, startedThatDay: 0 }),
  evolve: evolveSlot,
  decide: decideSlot,
};
