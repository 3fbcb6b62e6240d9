import { recordAutomationRun } from '../../commands/automation-run/record.js';
import type { DispatchNotifier } from '../../commands/mutation/dispatch-notifier.js';
import { aggregateStream, streamName } from '../../commands/shared/handler.js';
import type { WebhookPosts, WebhookPostsResult } from '../../commands/webhook/posts.js';
import { automationRunId } from '../../domain/automation-run/events.js';
import { accountDecider } from '../../domain/account/decide.js';
import { automationDecider } from '../../domain/automation/decide.js';
import { LiveAutomationChanged } from '../../domain/automation/events.js';
import { liveSlotDecider, liveSlotId } from '../../domain/automation/live-slot.js';
import { pauseDecider } from '../../domain/automation/pause.js';
import { MarketplaceEventReceived, type MarketplaceEventData } from '../../domain/event/events.js';
import { identitiesOf } from '../../domain/event/identities.js';
import { DomainError } from '../../domain/shared/errors.js';
import {
  comparePositions,
  type EventStore,
  type Position,
  type RecordedEvent,
  type Subscription,
} from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';
import type { Logger } from '../../infra/logger.js';
import { pollUntil } from '../../infra/poll.js';
import { isTransient } from '../../infra/transient.js';
import { loadAccount } from '../../projections/accounts/queries.js';
import { hasApplied } from '../../projections/checkpoints.js';
import { readShared, runAutomation, type SharedReads } from '../run.js';
import type { Admit } from '../outbox/index.js';
import { mentionsOf } from '../context/listing.js';
import { selectableStreamType } from '../../domain/stream/types.js';
import { listingsMentionedEach, type ListingRecord } from '../../projections/observed/listings-search.js';
import { readListingsTogether, type ListingsTogether } from '../context/listing-lookups.js';
import type { Sandbox } from '../sandbox/index.js';
import { readReactorCheckpoint } from './checkpoint.js';
import { ContiguousProgress, KeyedLanes, type ProgressEntry } from './ordering.js';
import { AccountWaves, GroupAdmissions } from './batch.js';
import { partitionOf, type HeldPartitions } from '../../domain/shared/partitions.js';
import { holdPartitions } from './partitions.js';
import { Recent } from './recent.js';
import { streamReadsTogether } from './stream-reads.js';
import { runIdentity, settleLiveRun } from './settle.js';

// Live runs (spec 4.11; docs/decisions/045-live-reactor.md): follows the log and, for each ingested marketplace event,
// runs the account's live automation of the event's type once per listing the event reached,
// through the one orchestrator (runAutomation, mode 'live'), then settles each run (store writes,
// webhook posts, the run's record: settle.ts).
//
// - Shared by the worker processes (docs/decisions/135-partitioned-live-runs.md): the accounts fall
//   in partitions, each held by one worker at a time as a lease (partitions.ts); a worker runs the
//   events of the partitions it holds and passes over the rest.
// - Durable and at least once: each partition has a checkpoint of its own (reactors.partitions),
//   which passes an event only when it and every earlier event of the partition are finished; a
//   restart, or a worker taking a dead worker's partition over, runs what was in flight again, and
//   the run's identity (automation version, event, listing) makes admission, store, posts and
//   record idempotent, so nothing is done twice.
// - Fast, in waves (docs/decisions/147-batched-live-runs.md, 152-overlapping-live-waves.md): each
//   event taken waits, in log order, only for the earlier events of its lanes (the listings or
//   campaigns it names: KeyedLanes), so an older event's decision can't land after a newer one's
//   and the newer sees its store writes, receipts and record; a retrying event holds its own lanes
//   only. An account's events made free form a wave (up to `batchSize`): at once when none is
//   forming (a lone event goes at once), else once the forming wave's reads are answered, so a
//   burst shares its reads; up to `wavesPerAccount` (2) of the account's waves run side by side, so
//   a backlog does not put a wave per read round-trip on the database (decision 154; an event gone
//   to its retries leaves its wave). A wave reads the account's
//   webhooks and its automations' stores in one statement, the listings its events reached in
//   another, those listings' own lookups in a third (listing-lookups.ts), and the block flags its
//   runs read side by side in one more (streamReadsTogether); runs' outboxes are admitted in group
//   commits per account (GroupAdmissions: with whatever waits when the last joint write ends), each
//   decided as alone. A run that follows a store write of its automation waits for the projector
//   to show it (the snapshot is a read model). Accounts run side by side (`concurrency` events taken).
// - Which automation: the live slot's (the authority), and only when it went live before the
//   event was recorded: activating an automation does not replay the past.
// - An account's view, which every event of the account reads alike, is read once a second per
//   account (`accountReadsMs`, recent.ts), not once per event, and again after the reactor takes
//   (in log order) an event of an account stream.
// - Never stopped by an automation: handler failures are recorded runs. Our own failures (the
//   database, admission refusing while admissions are disabled) are retried with backoff; an event
//   that still fails after `attempts` is a poison event: recorded as a failed run and skipped. The
//   database away or busy (an outage, a restart, a deadlock: infra/transient.ts) and the refusals
//   that say "later" are not counted: however long they last, the event runs once they pass.

export const LIVE_RUNS_CHECKPOINT = 'live-runs';

export interface LiveReactorOptions {
  db: Knex;
  /** the leases' own connection (default `db`): a renewal that queued behind busy runs for the pool would let them lapse */
  leasesDb?: Knex;
  store: EventStore;
  sandbox: Sandbox;
  logger: Logger;
  /** hands admitted receipts to the dispatch workers at once (else their sweep finds them) */
  notifier?: DispatchNotifier;
  enqueueWebhookPosts(input: WebhookPosts): Promise<WebhookPostsResult>;
  /** the name of its partitions and their checkpoints (default LIVE_RUNS_CHECKPOINT; tests use their own) */
  name?: string;
  /** how many partitions the accounts fall in (default 32; every worker of a deployment must agree) */
  partitions?: number;
  /** a partition's lease lasts this long after its last renewal (default 5 s), renewed every `renewEveryMs` (default 1 s) */
  leaseMs?: number;
  renewEveryMs?: number;
  /** events taken from the log and not yet finished, across accounts (default 64): the follower waits beyond it */
  concurrency?: number;
  /** at most this many of an account's events made free run in one wave (default 32; 1: a wave per event) */
  batchSize?: number;
  /** at most this many of an account's waves in flight (default 2: one reading while one runs); the next waits for one to be over */
  wavesPerAccount?: number;
  /** how often the checkpoints are written when they moved (default 200 ms) */
  checkpointEveryMs?: number;
  /** attempts before an event is a poison event (default 5), and the backoff between them */
  attempts?: number;
  backoffMs?: { base: number; max: number };
  /** how long a run waits for the projector to show its automation's last store write (default 10 s) */
  storeWaitMs?: number;
  /** how long an account's view, once read, serves its later events (default 1 s) */
  accountReadsMs?: number;
  now?: () => Date;
}

export interface LiveReactorStats {
  /** marketplace events taken from the log */
  events: number;
  /** runs settled (one per listing reached) */
  runs: number;
  /** events given up as poison */
  poison: number;
  /** events in flight */
  inFlight: number;
  /** waves run (each an account's events made free, up to batchSize) */
  batches: number;
  /** the partitions this worker holds */
  partitions: number[];
}

export interface LiveReactor {
  stats(): LiveReactorStats;
  /** the partitions this worker holds now: the report worker and the alerts sweep take their accounts only */
  held(): HeldPartitions;
  /** Stops taking events, lets the runs in flight finish (or abandons their retries), saves the checkpoint. */
  close(): Promise<void>;
}

/** What an event's first attempt shares with the rest of its wave. */
interface WaveRun {
  at: Date;
  shared(automation_id: string): Promise<SharedReads>;
  reached?: Promise<ListingRecord[]>;
  together?: Promise<ListingsTogether>;
  /** the log, its stream reads (block flags) sent together with the wave's others */
  store: EventStore;
  admit: Admit;
}

/** Refusals that say "later", not "never": retried without counting towards poison, as is the database away or busy (isTransient). */
const WAITS = new Set(['admissions_disabled', 'busy']);

/** The lanes an event runs in: one per listing (marketplace and ASIN or SKU) or campaign it names, else its type. */
export function laneKeys(event: MarketplaceEventData): string[] {
  const keys = identitiesOf(event.stream_type, event.payload).map((i) =>
    i.asin || i.sku
      ? `${i.marketplace_id ?? '*'}/${i.asin ?? i.sku}`
      : i.campaign_id
        ? `campaign/${i.campaign_id}`
        : (i.ad_group_id ?? i.ad_id ?? i.target_id ?? ''),
  );
  const named = [...new Set(keys.filter((k) => k !== ''))];
  return (named.length > 0 ? named : [event.stream_type]).map((k) => `${event.account_id}/${k}`);
}

interface Live {
  /** where the slot last changed, or the account's automations were paused or resumed since */
  since: Position;
  automation: { id: string; version: number; code: string } | null;
}

/**
 * The live slot of an account and type as the store has it now: its automation, if live and the
 * account's automations are not paused. After a resumption only events recorded since run.
 */
async function readLive(store: EventStore, account_id: string, stream_type: string): Promise<Live | null> {
  const [slots, pauses] = await Promise.all([
    store.readStream(streamName(liveSlotDecider.aggregate, liveSlotId(account_id, stream_type))),
    store.readStream(streamName(pauseDecider.aggregate, account_id)),
  ]);
  const slot = slots.at(-1);
  if (!slot) return null;
  const pause = pauses.at(-1);
  if (pause?.type === 'AutomationsPaused') return { since: pause.position, automation: null };
  const since = pause && comparePositions(pause.position, slot.position) > 0 ? pause.position : slot.position;
  const { automation_id } = LiveAutomationChanged.parse(slot.data);
  if (!automation_id) return { since, automation: null };
  const { state } = await aggregateStream(store, automationDecider, automation_id);
  return {
    since,
    automation: state.status === 'live' ? { id: automation_id, version: state.version, code: state.code } : null,
  };
}

/** What the reactor reads of the log: marketplace events, what says which automation is live and whether it runs, and account changes. */
const FOLLOWED = [
  'MarketplaceEventReceived',
  ...Object.keys(liveSlotDecider.schemas),
  ...Object.keys(automationDecider.schemas),
  ...Object.keys(pauseDecider.schemas),
  ...Object.keys(accountDecider.schemas),
];

/** Streams whose events change which automation is live, its code, or whether it runs: the live cache forgets all on one. */
const LIVE_SOURCES = [liveSlotDecider.aggregate, automationDecider.aggregate, pauseDecider.aggregate].map((a) =>
  streamName(a, ''),
);
/** An account's own stream: the accounts' views kept are read again after one of its events. */
const ACCOUNT_SOURCE = streamName(accountDecider.aggregate, '');

export async function startLiveReactor(o: LiveReactorOptions): Promise<LiveReactor> {
  const now = o.now ?? (() => new Date());
  const name = o.name ?? LIVE_RUNS_CHECKPOINT;
  const concurrency = o.concurrency ?? 64;
  const batchSize = o.batchSize ?? 32;
  const attempts = o.attempts ?? 5;
  const backoff = o.backoffMs ?? { base: 200, max: 10_000 };
  const logger = o.logger.child({ worker: 'live-runs' });
  /** every event taken, in log order, behind the earlier events of its lanes (across waves) */
  const lanes = new KeyedLanes();
  const admissions = new GroupAdmissions();
  const storeWrites = new Map<string, Position>();
  // The live automation per account and type, kept from one event to the next: read again once the
  // reactor takes (in log order) an event of a slot or an automation, so no event taken after a
  // change runs on what was live before it. An entry is the read itself, so one begun before a
  // change is dropped with the rest.
  const lives = new Recent(Infinity, (key) => {
    const [account_id, stream_type] = key.split('/') as [string, string];
    return readLive(o.store, account_id, stream_type);
  });
  const liveAutomationFor = async (event: RecordedEvent, data: MarketplaceEventData) => {
    const live = await lives.get(`${data.account_id}/${data.stream_type}`);
    // only an automation that went live before the event was recorded: activating one does not replay the past
    return live && comparePositions(live.since, event.position) <= 0 ? live.automation : null;
  };
  // read once a second per account, not once per event
  const accounts = new Recent(o.accountReadsMs ?? 1_000, async (id) => {
    const account = await loadAccount(o.db, id);
    // thrown, so not kept: the retry reads again
    if (!account) throw new Error(`account ${id} is not in the accounts read model yet`);
    return account;
  });
  const stats = { events: 0, runs: 0, poison: 0, batches: 0 };
  let closing = false;
  let running = 0;
  let freed: (() => void) | null = null;
  const abort = new AbortController();

  /** A partition this worker holds: where it stands, and its events in flight. */
  interface Held {
    progress: ContiguousProgress;
    /** its last event taken from the log */
    taken: Position;
    /** false until the log is followed again from `taken` or before (a partition claimed behind the follower) */
    ready: boolean;
    /** being handed over: no more of its events are taken */
    releasing: boolean;
    saved: Position;
    /**
     * Events an earlier holding of the partition in this process took and had not passed when it
     * let the partition go (by position), until taken again: that holding's copy runs first (the
     * same lanes), so this one runs only what the other did not finish.
     */
    earlier: Map<string, ProgressEntry>;
  }
  const held = new Map<number, Held>();
  /** Partitions let go (lease lapsed or lost), as they were: their events may still be in flight, or finished past the checkpoint. */
  const letGo = new Map<number, Held>();
  /** An event taken, of a partition held here. */
  interface Taken {
    event: RecordedEvent;
    data: MarketplaceEventData;
    partition: number;
    h: Held;
    entry: ProgressEntry;
    /** an earlier holding's entry for the same event (Held.earlier) */
    earlier?: ProgressEntry;
    /** called once the event is finished (or abandoned): its lanes' later events may go */
    finished?: () => void;
  }
  /** where following the log goes on from: the last event taken (undefined until a partition is held) */
  let from: Position | undefined;
  /** moved on when following must start again from `from` */
  let generation = 0;
  let subscription: Subscription | null = null;
  let woken: (() => void) | null = null;

  /** A partition's checkpoint: its last event before which all of its events are finished. */
  const checkpointOf = (h: Held): Position => {
    const settled = h.progress.position ?? h.taken;
    // with nothing in flight, every event of the partition up to where the follower is was taken and finished
    if (h.ready && !h.releasing && h.progress.inFlight === 0 && from && comparePositions(from, h.taken) >= 0)
      return from;
    return settled;
  };
  const save = async (partitions: Iterable<number>) => {
    const moved = new Map<number, Position>();
    for (const p of partitions) {
      const h = held.get(p);
      const at = h && checkpointOf(h);
      if (h && at && comparePositions(at, h.saved) > 0) moved.set(p, at);
    }
    await leases.save(moved);
    for (const [p, at] of moved) {
      const h = held.get(p);
      if (h && comparePositions(at, h.saved) > 0) h.saved = at;
    }
  };
  /**
   * Lets a partition go: its events not begun are abandoned; those in flight finish, and are
   * remembered (letGo) so that claiming it again here runs none of them twice.
   */
  const forget = (partition: number) => {
    const h = held.get(partition);
    if (h) letGo.set(partition, h);
    held.delete(partition);
    leases.drop(partition);
  };
  const positionKey = (p: Position) => `${p.commit}/${p.prepare}`;
  /**
   * A holding that starts past what this process finished of the partition before letting it go,
   * and knows that holding's events still unsettled (a lapsed lease claimed again by the same
   * worker otherwise reruns, from the saved checkpoint, events it still had in flight).
   */
  const holding = (partition: number, checkpoint: Position): Held => {
    const before = letGo.get(partition);
    letGo.delete(partition);
    const finished = before?.progress.position;
    const start = finished && comparePositions(finished, checkpoint) > 0 ? finished : checkpoint;
    const earlier = new Map<string, ProgressEntry>();
    for (const e of [...(before?.earlier.values() ?? []), ...(before?.progress.unsettled ?? [])])
      if (comparePositions(e.position, start) > 0) earlier.set(positionKey(e.position), e);
    return {
      progress: new ContiguousProgress(start),
      taken: start,
      ready: false,
      releasing: false,
      saved: checkpoint,
      earlier,
    };
  };

  const leases = await holdPartitions({
    db: o.leasesDb ?? o.db,
    name,
    count: o.partitions ?? 32,
    // the first start begins at the log's head (live runs start when the runtime is deployed), or
    // where the one reactor of an earlier release had got to
    start: async () =>
      (await readReactorCheckpoint(o.db, name)) ?? (await o.store.headPosition()) ?? { commit: 0n, prepare: 0n },
    logger,
    ...(o.leaseMs ? { ttlMs: o.leaseMs } : {}),
    ...(o.renewEveryMs ? { renewEveryMs: o.renewEveryMs } : {}),
    handlers: {
      claimed(partition, checkpoint) {
        const h = holding(partition, checkpoint);
        held.set(partition, h);
        if (from && comparePositions(h.taken, from) >= 0) h.ready = true;
        else {
          // behind the follower: follow again from the partition's checkpoint
          from = h.taken;
          generation++;
          void subscription?.unsubscribe();
          woken?.();
        }
      },
      lost: forget,
      async release(partition) {
        const h = held.get(partition);
        if (!h) return;
        h.releasing = true;
        await pollUntil(async () => h.progress.inFlight === 0 || held.get(partition) !== h, 60_000, 10);
        await save([partition]);
        held.delete(partition);
      },
    },
  });

  const saver = setInterval(
    () =>
      void save(held.keys()).catch((err: unknown) => logger.warn({ err }, 'could not save the live-runs checkpoints')),
    o.checkpointEveryMs ?? 200,
  );

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      abort.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });

  /** Waits until the projector shows the automation's last store write (a run reads the store from the read model). */
  async function storeSettled(automation_id: string): Promise<void> {
    const written = storeWrites.get(automation_id);
    if (written && !(await pollUntil(() => hasApplied(o.db, 'automation_store', written), o.storeWaitMs ?? 10_000, 5)))
      logger.warn({ automation_id }, 'the store read model lags: running on the snapshot it shows');
  }

  /**
   * Runs the live automation on the event and settles each run; throws what should be retried.
   * Within a wave (`wave`), its time, shared reads and joint admission are the wave's.
   */
  async function runEvent(event: RecordedEvent, data: MarketplaceEventData, wave?: WaveRun): Promise<void> {
    const t0 = performance.now();
    const automation = await liveAutomationFor(event, data);
    if (!automation) return;
    const account = await accounts.get(data.account_id);
    if (!wave) await storeSettled(automation.id);
    const at = wave?.at ?? now();
    const t1 = performance.now();
    const runs = await runAutomation(
      {
        db: o.db,
        store: wave?.store ?? o.store,
        sandbox: o.sandbox,
        logger,
        ...(o.notifier ? { notifier: o.notifier } : {}),
        ...(wave ? { admit: wave.admit } : {}),
      },
      {
        mode: 'live',
        automation,
        account,
        streamType: data.stream_type,
        event: { id: event.id, payload: data.payload },
        now: at,
        ...(wave ? { shared: wave.shared(automation.id) } : {}),
        ...(wave?.reached ? { reached: wave.reached } : {}),
        ...(wave?.together ? { together: wave.together } : {}),
      },
    );
    const t2 = performance.now();
    for (const run of runs) {
      const settled = await settleLiveRun(
        { db: o.db, store: o.store, enqueueWebhookPosts: o.enqueueWebhookPosts },
        runIdentity(run, data.account_id, data.stream_type),
        run,
        at,
      );
      // the furthest write: runs of one automation on other lanes settle in any order
      const last = storeWrites.get(automation.id);
      if (settled.storePosition && (!last || comparePositions(settled.storePosition, last) > 0))
        storeWrites.set(automation.id, settled.storePosition);
      stats.runs++;
    }
    // where a run's time goes, for operators chasing latency
    logger.debug(
      { event_id: event.id, lookup_ms: t1 - t0, run_ms: t2 - t1, settle_ms: performance.now() - t2, runs: runs.length },
      'live event handled',
    );
  }

  /** A poison event: recorded as a failed run of the live automation (when there is one), then skipped. */
  async function givenUp(event: RecordedEvent, data: MarketplaceEventData, err: Error): Promise<void> {
    const automation = await liveAutomationFor(event, data);
    if (!automation) return;
    const run = {
      automation_id: automation.id,
      automation_version: automation.version,
      account_id: data.account_id,
      stream_type: data.stream_type,
      event_id: event.id,
      listing_id: null,
    };
    await recordAutomationRun(
      {
        store: o.store,
        metadata: {
          actor: { kind: 'automation', id: automation.id },
          account_id: data.account_id,
          correlation_id: event.id,
          causation_id: event.id,
        },
      },
      {
        run,
        at: now(),
        error_message: `the live runner gave this event up after ${attempts} attempts: ${err.message}`,
        missing_fields: [],
        mutations: [],
        store_changes: 0,
        webhook_posts: 0,
      },
    );
    logger.error({ event_id: event.id, run_id: automationRunId(run), err }, 'poison event recorded and skipped');
  }

  /** Whether the worker may still run the partition's events: a lease lapsed on its own clock lets the partition go. */
  const stillHeld = (partition: number, h: Held): boolean => {
    if (held.get(partition) !== h) return false;
    if (leases.holds(partition)) return true;
    logger.warn({ partition }, 'the lease lapsed before it was renewed: the partition is let go');
    forget(partition);
    return false;
  };

  /**
   * True once the event is finished (run, or given up); false when the reactor closed, or let the
   * partition go, first. `firstOver` is called when its first attempt failed: it leaves its wave.
   */
  async function handle(
    { event, data, partition, h }: Taken,
    wave?: WaveRun,
    firstOver?: () => void,
  ): Promise<boolean> {
    let failures = 0;
    let last: Error | null = null;
    for (let attempt = 0; !closing && stillHeld(partition, h); attempt++) {
      try {
        if (last && failures >= attempts) {
          await givenUp(event, data, last);
          stats.poison++;
          // the first attempt runs in its wave, a retry alone (holding its own lanes only)
        } else await runEvent(event, data, attempt === 0 ? wave : undefined);
        return true;
      } catch (err) {
        // the run's own error names the poison, not a failure to record it
        if (failures < attempts) last = err as Error;
        if (!(err instanceof DomainError && WAITS.has(err.code)) && !isTransient(err)) failures++;
        logger.warn({ event_id: event.id, attempt, err }, 'live run failed; retrying');
        firstOver?.();
        await pause(Math.min(backoff.max, backoff.base * 2 ** Math.min(attempt, 16)));
      }
    }
    return false;
  }

  /** Finishes an event (its first attempt in `run`'s wave; none when an earlier holding here finished it): its checkpoint entry, its slot, its lanes. */
  async function finish(t: Taken, run?: WaveRun, firstOver?: () => void): Promise<void> {
    try {
      if (t.earlier?.done || (await handle(t, run, firstOver))) t.h.progress.done(t.entry);
    } finally {
      firstOver?.();
      running--;
      freed?.();
      freed = null;
      t.finished?.();
    }
  }

  /**
   * One wave of an account's events whose lanes were free (none shares a lane with another): their
   * live automations, each automation's last store write shown, then the account's webhooks and
   * the automations' stores in one statement and the listings the events reached in another
   * (`prepared` once they are answered: the account's next wave may form), then the runs, their
   * outboxes admitted in group commits. Over once each event is finished or gone to its retries.
   */
  async function runWave(wave: Taken[], prepared: () => void): Promise<void> {
    let preparing = true;
    const read = () => void (preparing && ((preparing = false), prepared()));
    let runs: Array<WaveRun | undefined> = [];
    try {
      runs = await prepare(wave, read);
    } catch (err) {
      // the database, say: each event then runs alone, and is retried as such
      read();
      logger.warn({ err }, 'a live wave could not be prepared; its events run alone');
    }
    // resolving is idempotent: a first attempt over, then the event finished, resolve it once
    await Promise.all(wave.map((t, i) => new Promise<void>((over) => void finish(t, runs[i], over))));
  }

  /** What each event's first attempt shares with the wave (none for an event without a live automation); calls `read` once the wave's reads are answered. */
  async function prepare(wave: Taken[], read: () => void): Promise<Array<WaveRun | undefined>> {
    const at = now();
    const account_id = wave[0]!.data.account_id;
    // a read that fails here fails the event's first attempt, which is then retried alone
    const automations = await Promise.all(wave.map((t) => liveAutomationFor(t.event, t.data).catch(() => null)));
    const ids = [...new Set(automations.flatMap((a) => (a ? [a.id] : [])))];
    await Promise.all(ids.map(storeSettled));
    // a wave with no automation to run reads nothing
    const sharedRead = ids.length > 0 ? readShared(o.db, account_id, ids, at) : undefined;
    const listing = wave.map(
      (t, i) => automations[i] !== null && selectableStreamType(t.data.stream_type)?.scope === 'Listing',
    );
    const reached = listingsMentionedEach(
      o.db,
      account_id,
      wave.map((t, i) => (listing[i] ? mentionsOf({ streamType: t.data.stream_type, event: t.data.payload }) : [])),
    );
    reached.catch(() => undefined); // awaited by the runs
    // the reached listings' own lookups, all in one statement (a run whose listing this misses reads alone)
    const together = Promise.all([reached, accounts.get(account_id)]).then(([each, account]) =>
      readListingsTogether(o.db, account, at, each.flat()),
    );
    together.catch(() => undefined);
    sharedRead?.catch(() => undefined); // awaited by the runs
    // the account's next wave forms once this one's reads are answered (one wave reading at a time)
    void Promise.allSettled([sharedRead, together]).then(read);
    const admit = admissions.admitFor(account_id);
    const store = streamReadsTogether(o.store);
    const shared = async (id: string): Promise<SharedReads> => {
      const r = await sharedRead!;
      // an automation gone live since the wave read its stores: read alone
      const store = r.stores.get(id) ?? (await readShared(o.db, account_id, [id], at)).stores.get(id)!;
      return { webhooks: r.webhooks, store };
    };
    return wave.map((_, i) =>
      automations[i]
        ? { at, store, shared, ...(listing[i] ? { reached: reached.then((each) => each[i]!), together } : {}), admit }
        : undefined,
    );
  }

  /** Each account's events whose lanes are free, in log order, in waves (≤ batchSize, ≤ wavesPerAccount in flight). */
  const waves = new AccountWaves<Taken>(batchSize, o.wavesPerAccount ?? 2, (wave, read) => {
    stats.batches++;
    return runWave(wave, read).catch((err: unknown) => logger.error({ err }, 'a live wave failed'));
  });

  /** Gathers an event whose lanes are free into its account's next wave; resolves once it is finished. */
  function whenFree(t: Taken): Promise<void> {
    return new Promise<void>((resolve) => {
      t.finished = resolve;
      waves.add(t.data.account_id, t);
    });
  }

  /** Takes one event from the log: runs it in its lanes when its partition is held here, else passes it. */
  async function take(event: RecordedEvent): Promise<void> {
    if (LIVE_SOURCES.some((prefix) => event.streamId.startsWith(prefix))) lives.clear();
    if (event.streamId.startsWith(ACCOUNT_SOURCE)) accounts.clear();
    if (event.type !== 'MarketplaceEventReceived') return;
    let data: MarketplaceEventData;
    try {
      data = MarketplaceEventReceived.parse(event.data);
    } catch (err) {
      logger.error({ event_id: event.id, err }, 'a marketplace event that does not fit its schema: skipped');
      return;
    }
    const partition = partitionOf(data.account_id, leases.count);
    const h = held.get(partition);
    // another worker's, one being handed over, or one already taken (followed again for another partition)
    if (!h || !h.ready || h.releasing || comparePositions(event.position, h.taken) <= 0) return;
    if (!stillHeld(partition, h)) return;
    h.taken = event.position;
    const entry = h.progress.begin(event.position);
    const key = positionKey(event.position);
    const earlier = h.earlier.get(key);
    h.earlier.delete(key);
    stats.events++;
    while (running >= concurrency && !closing) await new Promise<void>((resolve) => (freed = resolve));
    running++;
    // behind its lanes' earlier events (whichever wave they are in), then in its account's next wave
    const t: Taken = { event, data, partition, h, entry, ...(earlier ? { earlier } : {}) };
    // an earlier holding's copy of it went first in these lanes: finished there, it is not run again
    void lanes.run(laneKeys(data), () => (t.earlier?.done ? finish(t) : whenFree(t)));
  }

  const loop = (async () => {
    while (!closing) {
      if (!from) {
        // nothing held yet: a claim wakes it
        await new Promise<void>((resolve) => (woken = resolve));
        woken = null;
        continue;
      }
      const following = generation;
      for (const h of held.values()) if (!h.ready && comparePositions(from, h.taken) <= 0) h.ready = true;
      subscription = o.store.subscribeToAll({ after: from, types: FOLLOWED });
      try {
        for await (const event of subscription) {
          if (closing || following !== generation) break;
          from = event.position;
          await take(event);
        }
      } catch (err) {
        // the store is unreachable: follow again from the last event taken
        logger.error({ err }, 'the live-runs reactor lost the log; following it again');
        await pause(1_000);
      }
    }
  })();

  return {
    stats: () => ({
      ...stats,
      inFlight: [...held.values()].reduce((n, h) => n + h.progress.inFlight, 0),
      partitions: [...held.keys()].sort((a, b) => a - b),
    }),
    // a lease that lapsed on this worker's clock is not held, whether or not its events came since
    held: () => ({ count: leases.count, held: [...held.keys()].filter((p) => leases.holds(p)) }),
    async close() {
      closing = true;
      abort.abort();
      freed?.();
      woken?.();
      await subscription?.unsubscribe();
      await loop;
      await pollUntil(async () => running === 0, 30_000, 10);
      clearInterval(saver);
      await save(held.keys()).catch((err: unknown) => logger.warn({ err }, 'could not save the live-runs checkpoints'));
      await leases.close();
    },
  };
}
