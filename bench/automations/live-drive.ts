import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { activateAutomation } from '../../src/commands/automation/activation.js';
import { createAutomation } from '../../src/commands/automation/lifecycle.js';
import { PENDING_STATUSES } from '../../src/domain/mutation/events.js';
import type { EventStore, Position, RecordedEvent } from '../../src/eventstore/port.js';
import type { AccountView } from '../../src/projections/accounts/queries.js';
import type { Projector } from '../../src/projections/projector.js';
import { REPRICE_ONE_PATCH } from '../../test/support/offer-changes.js';
import { fmt } from '../support.js';

// What both live phases do alike (live.ts in this process, live-workers.ts with worker
// processes): the repricer made live on an account, events offered at a rate or in a burst, the
// dispatcher waited for, and the log's word on each event: its runs and admitted receipts.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the log's payloads are read loosely
type Loose = any;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a live phase measured, for the ratios and the goals (run.ts). */
export interface LiveFigures {
  phase: string;
  /** the machine's CPU per event over the sustained window */
  machineCpuPerEventMs: number;
  /** runs per second of the burst */
  saturation: number;
  /** the rate of the half-saturation window, and its event → admitted receipt p99 */
  halfRate: number;
  halfP99Ms: number;
  statementsPerEvent: number;
  peakRss: Array<{ process: string; bytes: number }>;
}

/** The repricing automation (one price patch an event), created and made live on the account. */
export async function liveRepricer(store: EventStore, userId: string, account: AccountView): Promise<void> {
  const call = { store, userId, accounts: [account], at: new Date(), correlationId: randomUUID(), simulate: false };
  const automation = await createAutomation(call, {
    account,
    stream_type: 'ANY_OFFER_CHANGED',
    title: 'Bench reprice',
    code: REPRICE_ONE_PATCH,
    operation_dependencies: {},
  });
  await activateAutomation(call, automation);
}

/** Sends events `first` … `first + count - 1` at `rate` a second, each without waiting for the previous; the ms it took. */
export async function offer(rate: number, count: number, first: number, send: (i: number) => Promise<void>) {
  const started = performance.now();
  const appends: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    appends.push(send(first + i));
  }
  await Promise.all(appends);
  return performance.now() - started;
}

/** Sends events `first` … `first + count - 1` as fast as the store takes them, fifty at a time. */
export async function burst(count: number, first: number, send: (i: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < count; i += 50)
    await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, k) => send(first + i + k)));
}

/** Waits until `runs()` reaches `count` or `withinMs` passes. */
export async function settled(runs: () => Promise<number> | number, count: number, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while ((await runs()) < count && Date.now() < deadline) await sleep(20);
}

/** Receipts the dispatcher has not sent yet, as the projected read model says. */
export const unsent = async (db: Knex): Promise<number> =>
  Number((await db('rm.mutation_receipts').whereIn('status', PENDING_STATUSES).count({ n: '*' }))[0]!.n);

/** Waits until every receipt is sent (projections caught up) or `withinMs` passes; the ms it took. */
export async function drained(db: Knex, projector: Projector, withinMs: number): Promise<number> {
  const started = performance.now();
  const deadline = Date.now() + withinMs;
  for (;;) {
    await projector.whenCaughtUp();
    if ((await unsent(db)) === 0 || Date.now() > deadline) return performance.now() - started;
    await sleep(50);
  }
}

/** The log from `after` on, read as it grows: how many runs it has recorded, and every event read so far. */
export function logTail(store: EventStore, after: Position | null) {
  const events: RecordedEvent[] = [];
  let runs = 0;
  let at = after;
  let reading: Promise<number> | null = null;
  const read = async () => {
    for (;;) {
      const page = await store.readAll({ after: at, limit: 5_000 });
      for (const e of page) if (e.type === 'AutomationRunRecorded') runs++;
      events.push(...page);
      if (page.length) at = page.at(-1)!.position;
      if (page.length < 5_000) return runs;
    }
  };
  return {
    events,
    /** runs recorded so far (one read at a time) */
    runs: () => (reading ??= read().finally(() => (reading = null))),
  };
}

/** The log's word on each marketplace event: its runs and its admitted receipts. */
export function countLog(log: readonly RecordedEvent[]) {
  const messageOf = new Map<string, string>();
  const recordedAt = new Map<string, number>();
  const runs = new Map<string, number>();
  const statuses = new Map<string, number>();
  let failure: string | undefined;
  /** event id → its admitted receipts, each with when it was recorded */
  const receipts = new Map<string, Array<{ id: string; at: number }>>();
  for (const e of log) {
    const data = e.data as Loose;
    if (e.type === 'MarketplaceEventReceived') {
      messageOf.set(e.id, data.message_id);
      recordedAt.set(e.id, e.createdAt.getTime());
    }
    if (e.type === 'AutomationRunRecorded') {
      runs.set(data.run.event_id, (runs.get(data.run.event_id) ?? 0) + 1);
      for (const a of data.actions as Loose[]) {
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        if (a.status === 'failed') failure ??= a.error_message;
      }
      if (data.error_message) statuses.set('run error', (statuses.get('run error') ?? 0) + 1);
    }
    if (e.type === 'MutationAdmitted' && data.caused_by) {
      const id = data.caused_by.event_id as string;
      receipts.set(id, [...(receipts.get(id) ?? []), { id: data.receipt_id, at: e.createdAt.getTime() }]);
    }
  }
  const events = [...messageOf.keys()];
  return {
    events,
    messageOf,
    receipts,
    statuses,
    failure,
    runs: runs.size,
    lost: events.filter((id) => !runs.has(id)).length,
    doubleRuns: [...runs.values()].filter((n) => n > 1).length,
    doubleAdmissions: [...receipts.values()].filter((r) => r.length > 1).length,
    /** event → admitted receipt in ms by the log's own times (the database's clock, each append's transaction start) */
    loggedLatency: (id: string): number | undefined => {
      const receipt = receipts.get(id)?.[0];
      return receipt && receipt.at - recordedAt.get(id)!;
    },
  };
}

/** The counts every live phase ends with. */
export function printCounts(c: ReturnType<typeof countLog>, poison: number, more = ''): void {
  console.log(`  actions: ${[...c.statuses].map(([k, n]) => `${k} ${fmt(n)}`).join(', ')}`);
  if (c.failure) console.log(`  a failed action: ${c.failure}`);
  console.log(
    `  events ${fmt(c.events.length)}, runs recorded ${fmt(c.runs)}, lost ${c.lost}, runs recorded twice ${c.doubleRuns}, double admissions ${c.doubleAdmissions}, poison ${poison}${more}`,
  );
}
