import type { Knex } from 'knex';
import { comparePositions, type EventStore, type Position, type RecordedEvent } from '../eventstore/port.js';
import type { Logger } from '../infra/logger.js';
import { ApplyError, applyEvents } from './apply.js';
import { advanceCheckpoint, readCheckpoints, type Checkpoint } from './checkpoints.js';
import { tryLockProjectionShared } from './locks.js';
import { READ_MODEL_SCHEMA, type Projection } from './projection.js';
import { rebuildOutdatedProjections } from './rebuild.js';
import { assertProjectionNames } from './schema.js';

export interface ProjectorOptions {
  /** events read per batch; one batch = one transaction per projection */
  batchSize?: number;
  /** how long to wait for a wake-up before polling again */
  pollMs?: number;
  logger?: Logger;
}

/**
 * running: applying the log. failed: its apply threw (see `error`); stopped until restart.
 * awaiting_rebuild: its code is newer than its tables (or it was never migrated).
 * superseded: its tables were built by newer code than this process runs.
 */
export type ProjectionState = 'running' | 'failed' | 'awaiting_rebuild' | 'superseded';

export interface ProjectionStatus {
  name: string;
  version: number;
  state: ProjectionState;
  /** the checkpoint in the database */
  position: Position | null;
  error?: { message: string; eventId: string };
}

export class ProjectionsFailedError extends Error {
  constructor(readonly failures: ApplyError[]) {
    super(failures.map((f) => f.message).join('; '));
    this.name = 'ProjectionsFailedError';
  }
}

type BatchOutcome = 'applied' | 'conflict' | 'paused' | 'failed';

interface Waiter {
  target: Position | null;
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * Follows the global log and keeps each projection's read model and checkpoint in step.
 * A batch is read outside any transaction; then, per projection, one transaction moves the
 * checkpoint (guarded: only from where it was read) and applies the batch's events. So an
 * event is applied exactly once even with several projector processes on one database,
 * and a crash leaves either the whole batch or none of it.
 */
export class Projector {
  private readonly batchSize: number;
  private readonly pollMs: number;
  private readonly logger: Logger | undefined;
  private checkpoints = new Map<string, Checkpoint>();
  private readonly failures = new Map<string, ApplyError>();
  private readonly waiters = new Set<Waiter>();
  private loop: Promise<void> | null = null;
  private rebuilding: Promise<void> | null = null;
  private abortRebuild: AbortController | null = null;
  private stopping = false;
  private woken = false;
  private wake: (() => void) | null = null;
  private unlisten: (() => void) | null = null;

  constructor(
    private readonly db: Knex,
    private readonly store: EventStore,
    private readonly projections: readonly Projection[],
    options: ProjectorOptions = {},
  ) {
    assertProjectionNames(projections);
    this.batchSize = options.batchSize ?? 500;
    this.pollMs = options.pollMs ?? 500;
    this.logger = options.logger;
  }

  /**
   * Catches up, then follows the log live. Projections whose code is newer than their
   * tables are rebuilt in the background meanwhile and join once swapped in.
   */
  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.unlisten = this.store.onAppended(() => this.wakeUp());
    this.loop = this.run();
    const abort = (this.abortRebuild = new AbortController());
    this.rebuilding = rebuildOutdatedProjections(this.db, this.store, this.projections, {
      batchSize: this.batchSize,
      signal: abort.signal,
      ...(this.logger ? { logger: this.logger } : {}),
    }).then(
      () => this.wakeUp(),
      (err) => {
        if (!abort.signal.aborted) this.logger?.error({ err }, 'rebuild of outdated projections failed');
      },
    );
  }

  /** Lets the batch in flight commit, then stops; pending `whenCaughtUp` calls are rejected. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.abortRebuild?.abort();
    this.wakeUp();
    await this.loop;
    await this.rebuilding;
    this.unlisten?.();
    this.loop = this.rebuilding = this.unlisten = this.abortRebuild = null;
    for (const w of this.waiters) w.reject(new Error('projector stopped'));
    this.waiters.clear();
  }

  /** Runs batches until `readAll` shows no projection anything left to apply (CLIs). */
  async catchUpOnce(): Promise<void> {
    while (await this.round());
    if (this.failures.size > 0) throw new ProjectionsFailedError([...this.failures.values()]);
  }

  /**
   * Resolves once every projection (at this code's version) has applied the log up to
   * `position`, or else up to the log's head as `readAll` sees it at call time: an append
   * committed while an older transaction still runs may not be visible yet, so pass the
   * append's position to wait for it. Rejects if a projection fails (once the others are
   * there) or the projector stops. Needs a started projector.
   */
  async whenCaughtUp(position?: Position | null): Promise<void> {
    if (!this.loop) throw new Error('whenCaughtUp needs a started projector');
    const target = position === undefined ? await this.store.headPosition() : position;
    const done = new Promise<void>((resolve, reject) => this.waiters.add({ target, resolve, reject }));
    this.settleWaiters();
    this.wakeUp();
    return done;
  }

  async status(): Promise<ProjectionStatus[]> {
    const checkpoints = await readCheckpoints(this.db);
    return this.projections.map((p) => {
      const cp = checkpoints.get(p.name);
      const failure = this.failures.get(p.name);
      return {
        name: p.name,
        version: p.version,
        state: failure ? 'failed' : stateOf(p, cp),
        position: cp?.position ?? null,
        ...(failure ? { error: { message: failure.message, eventId: failure.event.id } } : {}),
      };
    });
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      let progressed = false;
      try {
        progressed = await this.round();
      } catch (err) {
        // The store or the database is unreachable or erred: polling retries.
        this.logger?.error({ err }, 'projector round failed');
      }
      if (!progressed) await this.idle();
    }
  }

  /** One batch for every running projection; true if any checkpoint moved. */
  private async round(): Promise<boolean> {
    this.woken = false;
    this.checkpoints = await readCheckpoints(this.db);
    // Projections at the same checkpoint (the usual case) share one read of the log.
    const reads = new Map<string, Promise<RecordedEvent[]>>();
    let progressed = false;
    for (const p of this.projections) {
      const cp = this.checkpoints.get(p.name);
      if (this.stopping || !cp || this.failures.has(p.name) || stateOf(p, cp) !== 'running') continue;
      const key = cp.position ? `${cp.position.commit}/${cp.position.prepare}` : '';
      let read = reads.get(key);
      if (!read) reads.set(key, (read = this.store.readAll({ after: cp.position, limit: this.batchSize })));
      const events = await read;
      if (events.length === 0) continue;
      const outcome = await this.applyBatch(p, cp, events);
      if (outcome === 'applied') this.checkpoints.set(p.name, { ...cp, position: events[events.length - 1]!.position });
      // After a conflict the next round re-reads the checkpoint another process moved.
      if (outcome === 'applied' || outcome === 'conflict') progressed = true;
    }
    this.settleWaiters();
    return progressed;
  }

  private async applyBatch(p: Projection, cp: Checkpoint, events: RecordedEvent[]): Promise<BatchOutcome> {
    try {
      return await this.db.transaction(async (trx): Promise<BatchOutcome> => {
        // A rebuild is swapping this projection's tables in: skip it this round.
        if (!(await tryLockProjectionShared(trx, p.name))) return 'paused';
        // First statement that writes: nothing to roll back if another process got there first.
        if (!(await advanceCheckpoint(trx, p.name, p.version, cp.position, events[events.length - 1]!.position)))
          return 'conflict';
        await applyEvents(trx, p, events, READ_MODEL_SCHEMA);
        return 'applied';
      });
    } catch (err) {
      if (!(err instanceof ApplyError)) throw err;
      this.failures.set(p.name, err);
      this.logger?.error(
        { err: err.cause, projection: p.name, eventId: err.event.id, eventType: err.event.type },
        'projection stopped: apply failed',
      );
      return 'failed';
    }
  }

  /** A waiter settles once the healthy projections reach its target: it rejects if any failed. */
  private settleWaiters(): void {
    const healthy = this.projections.filter((p) => !this.failures.has(p.name));
    for (const w of this.waiters) {
      if (!healthy.every((p) => this.reached(p, w.target))) continue;
      if (this.failures.size > 0) w.reject(new ProjectionsFailedError([...this.failures.values()]));
      else w.resolve();
      this.waiters.delete(w);
    }
  }

  private reached(p: Projection, target: Position | null): boolean {
    const cp = this.checkpoints.get(p.name);
    if (!cp || stateOf(p, cp) !== 'running') return false;
    return target === null || (cp.position !== null && comparePositions(cp.position, target) >= 0);
  }

  /** The last event `readAll` returns, paging from the least advanced checkpoint. */
  private wakeUp(): void {
    this.woken = true;
    this.wake?.();
  }

  private idle(): Promise<void> {
    if (this.woken || this.stopping) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, this.pollMs);
      this.wake = done;
      function done() {
        clearTimeout(timer);
        resolve();
      }
    }).then(() => {
      this.wake = null;
    });
  }
}

function stateOf(p: Projection, cp: Checkpoint | undefined): ProjectionState {
  if (!cp || cp.version < p.version) return 'awaiting_rebuild';
  return cp.version > p.version ? 'superseded' : 'running';
}
