import { setTimeout as delay } from 'node:timers/promises';
import type { Knex } from 'knex';
import {
  comparePositions,
  type EventStore,
  type Position,
  type RecordedEvent,
  type TypedRead,
} from '../eventstore/port.js';
import { coalesced, type Coalesced } from '../eventstore/coalesce.js';
import type { Logger } from '../infra/logger.js';
import { ApplyError, applyEvents } from './apply.js';
import { isTransient } from '../infra/transient.js';
import {
  claimBatches,
  markStopped,
  readCheckpoint,
  readCheckpoints,
  type Checkpoint,
  type ClaimOutcome,
} from './checkpoints.js';
import { READ_MODEL_SCHEMA, readFor, sharedRead, wants, type Projection } from './projection.js';
import { rebuildOutdatedProjections } from './rebuild.js';
import { assertProjectionNames } from './schema.js';

/**
 * A batch's stored bytes: the page projections' events are pages of up to 100 orders (a third of a
 * megabyte of JSON), so 500 of them, read by several projections at once, held gigabytes in a
 * backfill. Stored (lz4) bytes are a few times fewer than the JSON's, and the objects' more.
 */
const BATCH_BYTES = 8 * 2 ** 20;

/** A live projection whose last batch applied within this long joins others in one transaction. */
const JOINS_WITHIN_MS = 50;
/** A start-up rebuild the database cut short is begun again after this, doubling up to the max. */
const REBUILD_RETRY_MS = 1_000;
const REBUILD_RETRY_MAX_MS = 30_000;

export interface ProjectorOptions {
  /** events read per batch; one batch = one transaction per projection (or one for live ones together) */
  batchSize?: number;
  /** and at most about this many bytes of their stored data (a filtered read's; default BATCH_BYTES) */
  batchBytes?: number;
  /** how long to wait for a wake-up before polling again */
  pollMs?: number;
  /** how long a checkpoint may trail what the projection has read past without finding its types (default 1 s) */
  persistSkippedMs?: number;
  /** appends heard within this long of the last wake-up share the next one (default 50 ms; see `heard`) */
  coalesceMs?: number;
  /** after each projection rebuilt at start is swapped in (views over its new tables, say); a failure is logged */
  onRebuilt?: (name: string) => Promise<void>;
  logger?: Logger;
}

/**
 * running: applying the log. failed: its apply threw for a reason that would not pass (see
 * `error`; infra/transient.ts); stopped until restart.
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

/** A projection's events (maybe none) read after its checkpoint `cp`, up to `through`. */
interface Batch {
  p: Projection;
  cp: Checkpoint;
  events: RecordedEvent[];
  through: Position;
}

/** A batch waiting to be applied with others, and how its caller hears the outcome. */
interface Joining {
  batch: Batch;
  done: (outcome: BatchOutcome | Promise<BatchOutcome>) => void;
}

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
 *
 * A read that finds none of the projection's types moves it on in memory only (`skipped`), and
 * the checkpoint follows at most every `persistSkippedMs`: every append wakes every projection,
 * and a transaction per projection per append was most of the database's work. Nothing is lost
 * by a crash meanwhile: the range read past holds no event the projection applies.
 *
 * Projections that have reached the head (`live`) and stand at the same position share one read
 * per head, made for their types and filters: after an append wakes them, one scan serves them all.
 * And the batches live projections have ready in one turn of the event loop (a shared read's, and
 * skipped checkpoints due) are applied in one transaction (`applyTogether`), by those whose last
 * batch applied quickly: a projection that turns slow applies alone again.
 */
export class Projector {
  private readonly batch: { limit: number; maxBytes: number };
  private readonly pollMs: number;
  private readonly logger: Logger | undefined;
  private readonly persistSkippedMs: number;
  /**
   * An append was heard: wakes the loops now, or once `coalesceMs` has passed since the last
   * wake-up by an append. Under a stream of appends (a live run is about five) each wake-up costs
   * every projection a look at the log and each with events a transaction; coalesced, one batch
   * takes what came meanwhile, at the cost of up to `coalesceMs` of read-model lag. Waiting
   * callers (`whenCaughtUp`, `catchUpOnce`) wake the loops at once.
   */
  private readonly heard: Coalesced;
  /** each projection's checkpoint as this process last read or wrote it */
  private readonly checkpoints = new Map<string, Checkpoint>();
  /** where a projection has read past its checkpoint without finding its types, and since when */
  private readonly skipped = new Map<string, { position: Position; since: number }>();
  private readonly failures = new Map<string, ApplyError>();
  /** how long each projection's last batch with events took to apply */
  private readonly applyMs = new Map<string, number>();
  /** the batches joining the next joint transaction, by projection, until this turn of the event loop ends */
  private joining: Map<string, Joining> | null = null;
  private readonly waiters = new Set<Waiter>();
  private loop: Promise<void> | null = null;
  private rebuilding: Promise<void> | null = null;
  private abortRebuild: AbortController | null = null;
  private stopping = false;
  /** bumped by every wake-up: a loop that saw an older one doesn't sleep */
  private generation = 0;
  private readonly sleepers = new Set<() => void>();
  /** the log's head, read once per wake-up (or poll) for every loop that checks for work, and the
   * shared reads made against it, by the position they read after */
  private head: {
    generation: number;
    at: number;
    position: Promise<Position | null>;
    reads: Map<string, SharedRead[]>;
  } | null = null;
  /** projections whose last read reached the head: they share reads */
  private readonly live = new Set<string>();
  /** every type a projection handles: appends of others don't wake the loops */
  private readonly types: string[];
  private unlisten: (() => void) | null = null;
  private readonly onRebuilt: ProjectorOptions['onRebuilt'];

  constructor(
    private readonly db: Knex,
    private readonly store: EventStore,
    private readonly projections: readonly Projection[],
    options: ProjectorOptions = {},
  ) {
    assertProjectionNames(projections);
    this.onRebuilt = options.onRebuilt;
    this.batch = { limit: options.batchSize ?? 500, maxBytes: options.batchBytes ?? BATCH_BYTES };
    this.pollMs = options.pollMs ?? 500;
    this.persistSkippedMs = options.persistSkippedMs ?? 1_000;
    this.heard = coalesced(() => this.wakeUp(), options.coalesceMs ?? 50);
    this.types = [...new Set(projections.flatMap((p) => p.handles))];
    this.logger = options.logger;
  }

  /**
   * Catches up, then follows the log live. Projections whose code is newer than their
   * tables are rebuilt in the background meanwhile and join once swapped in.
   */
  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.unlisten = this.store.onAppended(() => this.heard(), this.types);
    this.loop = Promise.all(this.projections.map((p) => this.follow(p))).then(() => undefined);
    const abort = (this.abortRebuild = new AbortController());
    this.rebuilding = this.rebuildOutdated(abort.signal);
  }

  /**
   * The start-up rebuilds. One the database cut short (an outage, a restart) is begun again, after
   * 1 s, then up to 30 s apart, rather than leaving its projection outdated until the next start;
   * any other failure is logged and left (it would fail the same way again).
   */
  private async rebuildOutdated(signal: AbortSignal): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await rebuildOutdatedProjections(this.db, this.store, this.projections, {
          batchSize: this.batch.limit,
          signal,
          ...(this.logger ? { logger: this.logger } : {}),
          ...(this.onRebuilt ? { onRebuilt: this.onRebuilt } : {}),
        });
        this.wakeUp();
        return;
      } catch (err) {
        if (signal.aborted) return;
        const again = isTransient(err);
        this.logger?.error({ err, again }, 'rebuild of outdated projections failed');
        if (!again) return;
        await delay(Math.min(REBUILD_RETRY_MAX_MS, REBUILD_RETRY_MS * 2 ** Math.min(attempt, 5)), undefined, {
          signal,
        }).catch(() => undefined);
        if (signal.aborted) return;
      }
    }
  }

  /** Lets the batch in flight commit, then stops; pending `whenCaughtUp` calls are rejected. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.abortRebuild?.abort();
    this.wakeUp();
    await this.loop;
    await this.rebuilding;
    this.unlisten?.();
    this.heard.cancel();
    this.loop = this.rebuilding = this.unlisten = this.abortRebuild = null;
    for (const w of this.waiters) w.reject(new Error('projector stopped'));
    this.waiters.clear();
  }

  /** Runs batches until the log shows no projection anything left to apply (CLIs). */
  async catchUpOnce(): Promise<void> {
    // a head cached before this call may predate appends it must see (no listener bumps it unstarted)
    this.wakeUp();
    // until the log shows nothing more and the checkpoint is written (another process may have
    // moved it meanwhile: then read on from where it left it)
    const drain = async (p: Projection) => {
      for (;;) {
        while (!this.stopping && (await this.step(p)));
        if (this.stopping || (await this.persistSkipped(p, 0)) !== 'conflict') return;
      }
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
      if (!progressed) {
        await this.persistSkipped(p, this.persistSkippedMs).catch((err: unknown) => {
          this.logger?.error({ err, projection: p.name }, 'projector checkpoint failed');
        });
        await this.sleep(seen);
      }
    }
    await this.persistSkipped(p, 0).catch(() => undefined);
  }

  /** One batch of the projection's own event types; true if it moved on (or another process moved it). */
  private async step(p: Projection): Promise<boolean> {
    const head = await this.headPosition();
    // nothing new since this loop's last batch: no query of its own
    if (this.running(p) && (head === null || reachedPosition(this.readTo(p), head))) {
      this.live.add(p.name);
      this.settleWaiters();
      return false;
    }
    // A running projection trusts its own checkpoint: the guarded write finds out if another
    // process moved it. Any other state is read again each time (a rebuild may swap it in).
    if (!this.running(p)) {
      const read = await readCheckpoint(this.db, p.name);
      if (read) this.checkpoints.set(p.name, read);
    }
    const cp = this.checkpoints.get(p.name);
    if (this.stopping || !cp || this.failures.has(p.name) || stateOf(p, cp) !== 'running') return false;
    const after = this.readTo(p);
    const { events, through } = await this.read(p, after);
    if (head !== null && (through === null || !reachedPosition(through, head))) this.live.delete(p.name);
    if (through === null || reachedPosition(after, through)) {
      this.settleWaiters();
      return false;
    }
    if (events.length === 0) {
      // only from where this read began: a step beside it (catchUpOnce on a started projector)
      // may have applied a batch meanwhile, and moving back would apply it again
      if (this.checkpoints.get(p.name) !== cp || this.readTo(p) !== after) return true;
      this.skipped.set(p.name, { position: through, since: this.skipped.get(p.name)?.since ?? Date.now() });
      this.settleWaiters();
      return true;
    }
    const outcome = await this.commit({ p, cp, events, through });
    this.settle(p, cp, through, outcome);
    return outcome === 'applied' || outcome === 'conflict';
  }

  /** Writes the checkpoint a projection has skipped to, once it is `olderThanMs` old. */
  private async persistSkipped(p: Projection, olderThanMs: number): Promise<BatchOutcome | null> {
    const skipped = this.skipped.get(p.name);
    const cp = this.checkpoints.get(p.name);
    if (!skipped || !cp || Date.now() - skipped.since < olderThanMs || this.failures.has(p.name)) return null;
    const outcome = await this.commit({ p, cp, events: [], through: skipped.position });
    this.settle(p, cp, skipped.position, outcome);
    return outcome;
  }

  /** Records a batch's outcome: after a conflict the next step re-reads the checkpoint another process moved. */
  private settle(p: Projection, cp: Checkpoint, through: Position, outcome: BatchOutcome): void {
    if (outcome === 'applied' || outcome === 'conflict') this.skipped.delete(p.name);
    if (outcome === 'applied') this.checkpoints.set(p.name, { ...cp, position: through });
    if (outcome === 'conflict') this.checkpoints.delete(p.name);
    this.settleWaiters();
  }

  private running(p: Projection): boolean {
    const cp = this.checkpoints.get(p.name);
    return cp !== undefined && stateOf(p, cp) === 'running';
  }

  /** Where the projection has read to: its checkpoint, or past it where nothing was its to apply. */
  private readTo(p: Projection): Position | null {
    return this.skipped.get(p.name)?.position ?? this.checkpoints.get(p.name)?.position ?? null;
  }

  /** The log's head, shared by the loops until the next wake-up or poll interval. */
  private headPosition(): Promise<Position | null> {
    const now = Date.now();
    if (!this.head || this.head.generation !== this.generation || now - this.head.at >= this.pollMs) {
      const position = this.store.headPosition();
      this.head = { generation: this.generation, at: now, position, reads: new Map() };
      position.catch(() => (this.head = null));
    }
    return this.head.position;
  }

  /**
   * The projection's next batch. A projection catching up reads its own types (and filter: a
   * projection of one dataset never loads another's pages). Live ones share a read per position
   * and head: the first at a position reads for every live projection standing there (their
   * types, and what their filters keep: sharedRead), and each keeps its own events; those arriving
   * there later, which that read may not cover (the batches of one joint commit arrive together),
   * share another made for the live ones standing there that no read there covers. So a wake-up
   * after an append costs one read for the projections in step, and in a backfill a projection of
   * receipts or completions never loads the pages its neighbours apply.
   */
  private async read(p: Projection, after: Position | null): Promise<TypedRead> {
    const reads = this.head?.reads;
    if (!reads || !this.live.has(p.name)) return readFor(this.store, p, after, this.batch);
    const key = after ? `${after.commit}/${after.prepare}` : '';
    const shared = reads.get(key)?.find((r) => r.covers.has(p.name)) ?? this.readShared(reads, key, p, after);
    const read = await shared.read;
    return { ...read, events: read.events.filter((e) => wants(p, e)) };
  }

  /** A read after `after` for `p` and the live projections standing there that no read made there covers. */
  private readShared(reads: Map<string, SharedRead[]>, key: string, p: Projection, after: Position | null): SharedRead {
    const made = reads.get(key) ?? [];
    const standing = this.projections.filter(
      (q) =>
        q === p ||
        (this.live.has(q.name) && samePosition(this.readTo(q), after) && !made.some((r) => r.covers.has(q.name))),
    );
    const shared = {
      covers: new Set(standing.map((q) => q.name)),
      read: this.store.readAllOfTypes({ after, ...sharedRead(standing), ...this.batch }),
    };
    reads.set(key, [...made, shared]);
    shared.read.catch(() => reads.set(key, reads.get(key)?.filter((r) => r !== shared) ?? []));
    return shared;
  }

  /**
   * Applies the batch and moves the checkpoint to its end: with the other live projections' batches
   * ready in this turn of the event loop, or else alone. One whose last batch took long applies
   * alone, so a projection busy with a heavy batch never holds the others' commits back.
   */
  private commit(batch: Batch): Promise<BatchOutcome> {
    const { p, events } = batch;
    const quick = events.length === 0 || (this.applyMs.get(p.name) ?? Infinity) < JOINS_WITHIN_MS;
    // a second batch of one projection this turn (catchUpOnce beside the loop) goes alone: its claim conflicts
    if (!quick || !this.live.has(p.name) || this.joining?.has(p.name)) return this.applyAlone(batch);
    let joining = this.joining;
    if (!joining) {
      const gathered = (joining = this.joining = new Map());
      setImmediate(() => {
        this.joining = null;
        void this.applyTogether([...gathered.values()]);
      });
    }
    return new Promise((done) => joining.set(p.name, { batch, done }));
  }

  /**
   * One transaction for the batches: one claim statement moves every checkpoint still where its
   * batch was read, then the claimed ones' events are applied. If anything in it fails (an apply
   * throws, or the database errs), nothing of it commits and each batch is applied alone, as if it
   * had never joined: a failing projection fails by itself and the others commit without it.
   */
  private async applyTogether(joining: Joining[]): Promise<void> {
    const batches = joining.map((j) => j.batch);
    let outcomes: BatchOutcome[] | null = null;
    if (batches.length > 1)
      outcomes = await this.db
        .transaction(async (trx) => {
          const claims = await claimBatches(trx, batches.map(claimOf));
          const applied: BatchOutcome[] = [];
          for (const b of batches) applied.push(await this.applyClaimed(trx, b, claims.get(b.p.name)!));
          return applied;
        })
        .catch((err: unknown) => {
          this.logger?.debug({ err }, 'projections apply alone: their joint transaction failed');
          return null;
        });
    for (const [i, j] of joining.entries()) j.done(outcomes ? outcomes[i]! : this.applyAlone(j.batch));
  }

  /** The batch in a transaction of its own; an apply that throws (not for a reason that passes) fails the projection. */
  private async applyAlone(batch: Batch): Promise<BatchOutcome> {
    const { p } = batch;
    try {
      return await this.db.transaction(async (trx) =>
        this.applyClaimed(trx, batch, (await claimBatches(trx, [claimOf(batch)])).get(p.name)!),
      );
    } catch (err) {
      if (!(err instanceof ApplyError)) throw err;
      this.logger?.error(
        { err: err.cause, projection: p.name, eventId: err.event.id, eventType: err.event.type },
        'projection stopped: apply failed',
      );
      // readers waiting for their own writes (read-your-writes) stop waiting for it; marked before
      // the failure is known here, so whoever hears of it (a waiter rejected) finds the mark
      await markStopped(this.db, claimOf(batch)).catch((e: unknown) =>
        this.logger?.error({ err: e, projection: p.name }, 'could not mark the projection stopped'),
      );
      this.failures.set(p.name, err);
      return 'failed';
    }
  }

  /**
   * Applies a batch whose claim came back `claim`. Paused: a rebuild is swapping this projection's
   * tables in, skip it this round. Conflict: another process got there first; nothing is applied.
   */
  private async applyClaimed(trx: Knex.Transaction, { p, events }: Batch, claim: ClaimOutcome): Promise<BatchOutcome> {
    if (claim !== 'claimed') return claim;
    if (events.length === 0) return 'applied';
    const started = performance.now();
    await applyEvents(trx, p, events, READ_MODEL_SCHEMA);
    this.applyMs.set(p.name, performance.now() - started);
    return 'applied';
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
    if (!this.running(p)) return false;
    return target === null || reachedPosition(this.readTo(p), target);
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

/** A read of the log shared by the live projections standing at its position when it was made. */
interface SharedRead {
  covers: Set<string>;
  read: Promise<TypedRead>;
}

const claimOf = ({ p, cp, through }: Batch) => ({ name: p.name, version: p.version, from: cp.position, to: through });

const samePosition = (a: Position | null, b: Position | null): boolean =>
  a === null || b === null ? a === b : comparePositions(a, b) === 0;

const reachedPosition = (at: Position | null, target: Position): boolean =>
  at !== null && comparePositions(at, target) >= 0;

function stateOf(p: Projection, cp: Checkpoint | undefined): ProjectionState {
  if (!cp || cp.version < p.version) return 'awaiting_rebuild';
  return cp.version > p.version ? 'superseded' : 'running';
}
