import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/errors.js';
import { storeEventSchemas, type StoreChange, type StoreEvent } from './events.js';
import { entryBytes, STORE_LIMITS, STORE_TTL_MS, utf8Bytes } from './limits.js';

// context.store (spec 2.14): a live run's buffered writes, applied after it succeeded. The stream
// is the run's (`automation_store-<run id>`), so recording is idempotent per run; the store as a
// whole lives in the read model, and the command hands the decider what it holds now (`usage`)
// so the limits are checked on what the store would hold after the run.

/** A write as the sandbox buffers it. */
export type StoreEffect = { op: 'set'; key: string; value: unknown } | { op: 'delete'; key: string };

/** What the automation's store holds now (unexpired values only). */
export interface StoreUsage {
  keys: number;
  bytes: number;
  /** the bytes each key the run writes holds now (absent: no value) */
  held: ReadonlyMap<string, number>;
}

export interface ApplyStoreEffects {
  type: 'ApplyStoreEffects';
  automation_id: string;
  run_id: string;
  at: string;
  effects: readonly StoreEffect[];
  usage: StoreUsage;
}

export interface StoreRunState {
  applied: boolean;
}

// eslint-disable-next-line no-control-regex -- NUL is exactly what PostgreSQL text cannot store
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const refuse = (detail: string) => new DomainError('invalid', `store: ${detail}`, { argument: 'store' });
const count = (n: number) => n.toLocaleString('en-US');

function checkKey(key: unknown): string {
  if (typeof key !== 'string' || key === '')
    throw refuse(`a key must be a non-empty string, not ${JSON.stringify(key)}`);
  if (UNSTORABLE.test(key))
    throw refuse(`key '${key}' holds a NUL character or a lone UTF-16 surrogate, which cannot be stored`);
  if (utf8Bytes(key) > STORE_LIMITS.keyBytes)
    throw refuse(
      `key '${key.slice(0, 40)}…' is ${count(utf8Bytes(key))} bytes, over the limit of ${STORE_LIMITS.keyBytes} bytes per key`,
    );
  return key;
}

function valueJson(key: string, value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (err) {
    throw refuse(`the value of key '${key}' is not JSON-serializable (${(err as Error).message})`);
  }
  if (json === undefined) throw refuse(`the value of key '${key}' is not JSON-serializable (${typeof value})`);
  const bytes = utf8Bytes(json);
  if (bytes > STORE_LIMITS.valueBytes)
    throw refuse(
      `the value of key '${key}' is ${count(bytes)} bytes of JSON, over the limit of ${count(STORE_LIMITS.valueBytes)} bytes per value`,
    );
  return json;
}

/** The run's writes, one per key (its last write of the key wins), in the order of those last writes. */
export function storeChanges(effects: readonly StoreEffect[]): StoreChange[] {
  const last = new Map<string, StoreChange>();
  for (const e of effects) {
    const key = checkKey(e.key);
    if (e.op !== 'set' && e.op !== 'delete')
      throw refuse(`'${String((e as { op: unknown }).op)}' is not set or delete`);
    last.delete(key);
    last.set(key, { key, value_json: e.op === 'set' ? valueJson(key, e.value) : null });
  }
  return [...last.values()];
}

/** Refuses changes that would take the store over its key count or total size. */
function checkTotals(changes: readonly StoreChange[], usage: StoreUsage): void {
  let { keys, bytes } = usage;
  for (const { key, value_json } of changes) {
    const held = usage.held.get(key);
    if (held !== undefined) {
      keys -= 1;
      bytes -= held;
    }
    if (value_json !== null) {
      keys += 1;
      bytes += entryBytes(key, value_json);
    }
  }
  if (keys > STORE_LIMITS.keys)
    throw refuse(
      `the run would leave ${count(keys)} keys, over the limit of ${count(STORE_LIMITS.keys)} keys per automation; delete keys you no longer need`,
    );
  if (bytes > STORE_LIMITS.totalBytes)
    throw refuse(
      `the run would leave ${count(bytes)} bytes of keys and values, over the limit of ${count(STORE_LIMITS.totalBytes)} bytes per automation; delete keys you no longer need`,
    );
}

export function decide(command: ApplyStoreEffects, state: StoreRunState): StoreEvent[] {
  if (state.applied) return [];
  const changes = storeChanges(command.effects);
  if (changes.length === 0) return [];
  checkTotals(changes, command.usage);
  const expires_at = new Date(Date.parse(command.at) + STORE_TTL_MS).toISOString();
  const { automation_id, run_id, at } = command;
  return [{ type: 'StoreChangesApplied', data: { automation_id, run_id, at, expires_at, changes } }];
}

export const storeDecider: Decider<ApplyStoreEffects, StoreRunState, StoreEvent> = {
  aggregate: 'automation_store',
  schemas: storeEventSchemas,
  initialState: () => ({ applied: false }),
  evolve: () => ({ applied: true }),
  decide,
};
