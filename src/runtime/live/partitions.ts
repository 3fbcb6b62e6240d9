import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Position } from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';
import type { Logger } from '../../infra/logger.js';

// Partitions of accounts held as leases (docs/decisions/135-partitioned-live-runs.md): several
// worker processes share a log follower that must not run an event twice. An account's events all
// fall in one partition (partitionOf); each partition has one owner at a time, a lease the owner
// renews every `renewEveryMs` and that lapses `ttlMs` after its last renewal, and a checkpoint of
// its own that only its owner may move. Each worker announces itself (reactors.workers) and holds
// its share, ceil(partitions / workers alive): a new worker's arrival makes the others hand their
// surplus over (finished and checkpointed first), a dead worker's leases lapse and the others
// claim them. Expiry is the database's clock, so workers' clocks need not agree; a worker that
// could not renew in time stops on its own clock, a second before the database would give the
// partition away.

const SCHEMA = 'reactors';
const PARTITIONS = `${SCHEMA}.partitions`;
const WORKERS = `${SCHEMA}.workers`;

/** Migration step (src/migrations.ts). */
export async function migrateReactorPartitions(db: Knex | Knex.Transaction): Promise<void> {
  await db.raw(`create schema if not exists ${SCHEMA}`);
  await db.raw(`create table if not exists ${PARTITIONS} (
    name text not null,
    partition int not null,
    owner text,
    expires_at timestamptz,
    heartbeat_at timestamptz,
    commit_position numeric(20, 0) not null,
    prepare_position numeric(20, 0) not null,
    primary key (name, partition))`);
  await db.raw(`create table if not exists ${WORKERS} (
    name text not null,
    worker text not null,
    expires_at timestamptz not null,
    primary key (name, worker))`);
}

const position = (row: { commit_position: string; prepare_position: string }): Position => ({
  commit: BigInt(row.commit_position),
  prepare: BigInt(row.prepare_position),
});

export interface LeaseHandlers {
  /** now held: its events are to be run from `checkpoint` on */
  claimed(partition: number, checkpoint: Position): void;
  /** no longer held (its lease lapsed): stop taking its events at once */
  lost(partition: number): void;
  /** to be handed over: resolves once its events in flight are finished and its checkpoint is saved */
  release(partition: number): Promise<void>;
}

export interface PartitionLeasesOptions {
  db: Knex;
  /** the follower's name: its partitions and workers are its own */
  name: string;
  /** how many partitions (every worker of a deployment must agree) */
  count: number;
  /** where a partition's checkpoint starts when the partitions are first made */
  start: () => Promise<Position>;
  handlers: LeaseHandlers;
  logger: Logger;
  /** how long a lease lasts after its last renewal (default 5 s) */
  ttlMs?: number;
  /** how often leases are renewed, and free or lapsed ones claimed (default 1 s) */
  renewEveryMs?: number;
}

export interface PartitionLeases {
  /** this worker's id (the owner column) */
  readonly worker: string;
  readonly count: number;
  /** Whether this worker holds the partition now (on its own clock). */
  holds(partition: number): boolean;
  /** Forgets a partition its follower let go of; the next round releases it if the database still names this worker. */
  drop(partition: number): void;
  /** The partitions held now. */
  held(): number[];
  /** Moves the checkpoints of partitions this worker still owns forward (one statement); others are left as they are. */
  save(checkpoints: ReadonlyMap<number, Position>): Promise<void>;
  /** Stops renewing and releases every partition (call once their checkpoints are saved). */
  close(): Promise<void>;
}

export async function holdPartitions(o: PartitionLeasesOptions): Promise<PartitionLeases> {
  const { db, name, count, handlers } = o;
  const ttlMs = o.ttlMs ?? 5_000;
  const renewEveryMs = o.renewEveryMs ?? 1_000;
  const worker = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  const logger = o.logger.child({ leases: name, owner: worker });
  const ttl = `${ttlMs} milliseconds`;

  const made = await db.table(PARTITIONS).where({ name }).count<{ n: string }[]>({ n: '*' });
  if (Number(made[0]!.n) === 0) {
    const at = await o.start();
    await db.raw(
      `insert into ${PARTITIONS} (name, partition, commit_position, prepare_position)
       select ?, g, ?, ? from generate_series(0, ? - 1) g on conflict do nothing`,
      [name, at.commit.toString(), at.prepare.toString(), count],
    );
  }
  const rows = await db.table(PARTITIONS).where({ name }).count<{ n: string }[]>({ n: '*' });
  if (Number(rows[0]!.n) !== count)
    throw new Error(
      `${name} has ${rows[0]!.n} partitions and this worker was given ${count}: every worker of a deployment needs the same count`,
    );

  /** partition → until when (performance.now()) this worker may run it */
  const held = new Map<number, number>();
  const releasing = new Set<number>();
  let closed = false;

  const release = async (partition: number) => {
    await db.table(PARTITIONS).where({ name, partition, owner: worker }).update({ owner: null, expires_at: null });
  };

  async function round(): Promise<void> {
    const began = performance.now();
    // a second short of the database's expiry: this worker stops before another may start
    const until = began + ttlMs - Math.min(1_000, ttlMs / 5);
    const { rows: alive } = await db.raw<{ rows: { n: number }[] }>(
      `with me as (insert into ${WORKERS} (name, worker, expires_at) values (?, ?, now() + ?::interval)
         on conflict (name, worker) do update set expires_at = excluded.expires_at),
       gone as (delete from ${WORKERS} where name = ? and expires_at < now())
       select count(*)::int + 1 as n from ${WORKERS} where name = ? and worker <> ? and expires_at >= now()`,
      [name, worker, ttl, name, name, worker],
    );
    const { rows: renewed } = await db.raw<{ rows: { partition: number }[] }>(
      `update ${PARTITIONS} set expires_at = now() + ?::interval, heartbeat_at = now()
       where name = ? and owner = ? returning partition`,
      [ttl, name, worker],
    );
    if (closed) return;
    const still = new Set(renewed.map((r) => r.partition));
    for (const partition of [...held.keys()])
      if (!still.has(partition)) {
        held.delete(partition);
        releasing.delete(partition);
        logger.warn({ partition }, 'lease lost: another worker holds the partition');
        handlers.lost(partition);
      }
    for (const partition of still)
      if (held.has(partition)) held.set(partition, until);
      // the database names this worker, its follower let it go: free it for whoever claims it
      else await release(partition);

    const share = Math.ceil(count / alive[0]!.n);
    const staying = [...held.keys()].filter((p) => !releasing.has(p)).sort((a, b) => a - b);
    for (const partition of staying.slice(share)) {
      releasing.add(partition);
      void handlers
        .release(partition)
        .then(async () => {
          if (!releasing.delete(partition)) return;
          held.delete(partition);
          await release(partition);
        })
        .catch((err: unknown) => logger.warn({ err, partition }, 'could not hand the partition over'));
    }
    const wanted = share - staying.length;
    if (wanted <= 0) return;
    const { rows: claimed } = await db.raw<{
      rows: { partition: number; commit_position: string; prepare_position: string }[];
    }>(
      `with free as (select partition from ${PARTITIONS}
         where name = ? and (owner is null or expires_at < now()) order by partition limit ? for update skip locked)
       update ${PARTITIONS} p set owner = ?, expires_at = now() + ?::interval, heartbeat_at = now()
       from free where p.name = ? and p.partition = free.partition
       returning p.partition, p.commit_position, p.prepare_position`,
      [name, wanted, worker, ttl, name],
    );
    for (const row of claimed) {
      held.set(row.partition, until);
      handlers.claimed(row.partition, position(row));
    }
    if (claimed.length) logger.info({ claimed: claimed.map((r) => r.partition), share }, 'partitions claimed');
  }

  let running: Promise<void> | null = null;
  const tick = () => {
    // a round still running (a slow database) is not queued behind: leases it could not renew lapse
    running ??= round()
      .catch((err: unknown) => logger.warn({ err }, 'could not renew the partition leases'))
      .finally(() => (running = null));
  };
  tick();
  await running;
  const timer = setInterval(tick, renewEveryMs);

  return {
    worker,
    count,
    holds: (partition) => (held.get(partition) ?? 0) > performance.now(),
    drop(partition) {
      held.delete(partition);
      releasing.delete(partition);
    },
    held: () => [...held.keys()],
    async save(checkpoints) {
      if (checkpoints.size === 0) return;
      const entries = [...checkpoints];
      await db.raw(
        `update ${PARTITIONS} p set commit_position = v.c, prepare_position = v.pp
         from unnest(?::int[], ?::numeric[], ?::numeric[]) as v(partition, c, pp)
         where p.name = ? and p.partition = v.partition and p.owner = ?
           and (p.commit_position, p.prepare_position) < (v.c, v.pp)`,
        [
          entries.map(([p]) => p),
          entries.map(([, at]) => at.commit.toString()),
          entries.map(([, at]) => at.prepare.toString()),
          name,
          worker,
        ],
      );
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await running;
      held.clear();
      await db.table(PARTITIONS).where({ name, owner: worker }).update({ owner: null, expires_at: null });
      await db.table(WORKERS).where({ name, worker }).delete();
    },
  };
}
