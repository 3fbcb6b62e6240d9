import type { Knex } from 'knex';
import { comparePositions, type EventStore, type Position, type RecordedEvent } from '../eventstore/port.js';
import type { Logger } from '../infra/logger.js';
import { ApplyError, applyEvents } from './apply.js';
import { advanceCheckpoint, readCheckpoint, readCheckpoints, type Checkpoint } from './checkpoints.js';
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
 * Each projection follows the log on its own, reading only the event types it handles, so a
 * projection busy with a backfill's pages never holds back the receipts or the accounts. A
 * batch is read outside any transaction; then one transaction moves the projection's
 * checkpoint (guarded: only from where it was read) and applies the batch. So an event is
 * applied exactly once even with several projector processes on one database, and a crash
 * leaves either the whole batch or none of it.
 */
export class Projector {
  private readonly batchSize: number;
  private readonly pollMs: number;
  private readonly logger: Logger | undefined;
  private readonly checkpoints = new Map<string, Checkpoint>();
  private readonly failures = new Map<string, ApplyError>();
  private readonly waiters = new Set<Waiter>();
  private loop: Promise<void> | null = null;
  private rebuilding: Promise<void> | null = null;
  private abortRebuild: AbortController | null = null;
  private stopping = false;
  /** bumped by every wake-up: a loop that saw an older one doesn't sleep */
  private generation = 0;
  private readonly sleepers = new Set<() => void>();
  /** the log's head, read once per wake-up (or poll) for every loop that checks for work */
  private head: { generation: number; at: number; position: Promise<Position | null> } | null = null;
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
    this.loop = Promise.all(this.projections.map((p) => this.follow(p))).then(() => undefined);
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

  /** Runs batches until the log shows no projection anything left to apply (CLIs). */
  async catchUpOnce(): Promise<void> {
    // a head cached before this call may predate appends it must see (no listener bumps it unstarted)
    this.wakeUp();
    const drain = async (p: Projection) => {
      while (!this.stopping && (await this.step(p)));
    };
    await Promise.all(this.projections.map(drain));
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

  /** One projection's loop: a batch at a time, sleeping when it has nothing to do. */
  private async follow(p: Projection): Promise<void> {
    while (!this.stopping && !this.failures.has(p.name)) {
      const seen = this.generation;
      let progressed = false;
      try {
        progressed = await this.step(p);
      } catch (err) {
        // The store or the database is unreachable or erred: polling retries.
        this.logger?.error({ err, projection: p.name }, 'projector batch failed');
      }
      if (!progressed) await this.sleep(seen);
    }
  }

  /** One batch of the projection's own event types; true if its checkpoint moved (or another process moved it). */
  private async step(p: Projection): Promise<boolean> {
    const known = this.checkpoints.get(p.name);
    const head = await this.headPosition();
    // nothing new since this loop's last batch: no query of its own
    if (known && stateOf(p, known) === 'running' && (head === null || reachedPosition(known.position, head))) {
      this.settleWaiters();
      return false;
    }
    const cp = await readCheckpoint(this.db, p.name);
    if (cp) this.checkpoints.set(p.name, cp);
    if (this.stopping || !cp || this.failures.has(p.name) || stateOf(p, cp) !== 'running') return false;
    const { events, through } = await this.store.readAllOfTypes({
      after: cp.position,
      types: p.handles,
      limit: this.batchSize,
    });
    if (through === null || reachedPosition(cp.position, through)) {
      this.settleWaiters();
      return false;
    }
    const outcome = await this.applyBatch(p, cp, events, through);
    if (outcome === 'applied') this.checkpoints.set(p.name, { ...cp, position: through });
    // After a conflict the next step re-reads the checkpoint another process moved.
    if (outcome === 'conflict') this.checkpoints.delete(p.name);
    this.settleWaiters();
    return outcome === 'applied' || outcome === 'conflict';
  }

  /** The log's head, shared by the loops until the next wake-up or poll interval. */
  private headPosition(): Promise<Position | null> {
    const now = Date.now();
    if (!this.head || this.head.generation !== this.generation || now - this.head.at >= this.pollMs) {
      const position = this.store.headPosition();
      this.head = { generation: this.generation, at: now, position };
      position.catch(() => (this.head = null));
    }
    return this.head.position;
  }

  /** Applies `events` (maybe none) and moves the checkpoint to `through`. */
  private async applyBatch(
    p: Projection,
    cp: Checkpoint,
    events: RecordedEvent[],
    through: Position,
  ): Promise<BatchOutcome> {
    try {
      return await this.db.transaction(async (trx): Promise<BatchOutcome> => {
        // A rebuild is swapping this projection's tables in: skip it this round.
        if (!(await tryLockProjectionShared(trx, p.name))) return 'paused';
        // First statement that writes: nothing to roll back if another process got there first.
        if (!(await advanceCheckpoint(trx, p.name, p.version, cp.position, through))) return 'conflict';
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
    return target === null || reachedPosition(cp.position, target);
  }

  private wakeUp(): void {
    this.generation++;
    for (const wake of this.sleepers) wake();
  }

  /** Until a wake-up newer than `seen`, or the poll interval. */
  private sleep(seen: number): Promise<void> {
    if (this.generation !== seen || this.stopping) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, this.pollMs);
      this.sleepers.add(done);
    });
  }
}

const reachedPosition = (at: Position | null, target: Position): boolean =>
  at !== null && comparePositions(at, target) >= 0;

function stateOf(p: Projection, cp: Checkpoint | undefined): ProjectionState {
  if (!cp || cp.version < p.version) return 'awaiting_rebuild';
  return cp.version > p.version ? 'superseded' : 'running';
}
