// A backtest's limits (docs/decisions/121-backtest-quota.md): one running per user, a daily quota,
// and how much of a result is kept in the backtest's own record.

export const BACKTEST_LIMITS = {
  /** backtests a user may start per UTC day */
  perDay: 20,
  /** the longest window, in days (the events' retention: one month) */
  maxDays: 31,
  /** the default window: the last 30 days */
  defaultDays: 30,
  /** runs kept with their detail (the totals and series count every run) */
  runDetails: 1_000,
  /** entries kept per list (changes per target and action, blocked, failures, errors, posts) */
  itemsPerList: 200,
  /** console lines kept per run */
  logLinesPerRun: 10,
  /** would-be receipts a listing's context shows */
  receiptsPerListing: 10,
  /** how often progress is recorded, in messages */
  progressEvery: 500,
  /** messages whose live runs are looked up at a time */
  liveLookupBatch: 1_000,
} as const;
