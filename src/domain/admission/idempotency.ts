import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/errors.js';
import { idempotencyEventSchemas, type IdempotencyEvent, type IdempotencyKeyUsed } from './events.js';
import { sha256 } from '../shared/canonical.js';
import { fingerprint } from './rules.js';

// An idempotency key (spec 4.8), one stream per caller namespace and key: a call with the key is
// admitted afresh (never used, or its answer expired), replayed (the same input: the recorded
// answer again) or refused (another input). The verdict is given before the call is admitted, so
// a replay costs no checks; the answer is then recorded on the same state, under the key's lock.

/** How long an idempotency key answers with its first call's results (spec 4.8 `idempotency.expires_at`). */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;

/**
 * How long an automation run's admission answers a rerun of the same run: longer than events are
 * kept (a month, spec 8), so no event can be run again once its first admission expired.
 */
export const RUN_IDEMPOTENCY_TTL_MS = 35 * 86_400_000;

/**
 * The key an automation run's outbox is admitted under (spec 4.12): one per (automation, code
 * version, event, listing), in a namespace of the automation's own that no MCP caller shares. Its
 * fingerprint covers the run's identity, not its output: a rerun whose handler pushed something
 * else (it read the clock, say) replays the first answer instead of admitting a second time.
 */
export function runIdempotency(
  run: { automation_id: string; automation_version: number; event_id: string; listing_id: string | null },
  now: Date,
): { namespace: string; key: string; fingerprint: string; expires_at: string } {
  const namespace = `automation:${run.automation_id}`;
  const key = `${run.automation_version}/${run.event_id}/${run.listing_id ?? '-'}`;
  return {
    namespace,
    key,
    fingerprint: fingerprint({ namespace, key }),
    expires_at: new Date(now.getTime() + RUN_IDEMPOTENCY_TTL_MS).toISOString(),
  };
}

/** The stream id (after `idempotency-`) of a key: keys never cross namespaces. */
export const idempotencyStreamId = (namespace: string, key: string): string => sha256(`${namespace}\u0000${key}`);

export interface IdempotencyState {
  /** the key's latest use */
  used: IdempotencyKeyUsed | null;
}

/** Records a call's answer under its key; `use` carries the call's fingerprint and results. */
export type IdempotencyCommand = { type: 'RecordKeyUse'; use: IdempotencyKeyUsed; at: string };

/** What a call with the key and this fingerprint does at `at`; another input is refused. */
export function idempotencyVerdict({ used }: IdempotencyState, fingerprint: string, at: string): 'admit' | 'replay' {
  if (!used || Date.parse(used.expires_at) <= Date.parse(at)) return 'admit';
  if (used.fingerprint === fingerprint) return 'replay';
  throw new DomainError(
    'idempotency_conflict',
    `idempotency_key '${used.key}' was used at least once with a different input (until ${used.expires_at}); nothing was queued. Use a new key for a new request`,
    {
      argument: 'idempotency_key',
      expires_at: used.expires_at,
    },
  );
}

export const idempotencyDecider: Decider<IdempotencyCommand, IdempotencyState, IdempotencyEvent> = {
  aggregate: 'idempotency',
  schemas: idempotencyEventSchemas,
  initialState: () => ({ used: null }),
  evolve: (_state, event) => ({ used: event.data }),
  decide({ use, at }, state) {
    // the same input answered meanwhile: its answer stands, a second one would admit twice
    if (idempotencyVerdict(state, use.fingerprint, at) === 'replay')
      throw new DomainError(
        'busy',
        `idempotency_key '${use.key}' was just used with the same input by another call; retry to get its answer`,
      );
    return [{ type: 'IdempotencyKeyUsed', data: use }];
  },
};
