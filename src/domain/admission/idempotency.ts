import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/errors.js';
import { idempotencyEventSchemas, type IdempotencyEvent, type IdempotencyKeyUsed } from './events.js';
import { sha256 } from './rules.js';

// An idempotency key (spec 4.8), one stream per caller namespace and key: a call with the key is
// admitted afresh (never used, or its answer expired), replayed (the same input: the recorded
// answer again) or refused (another input). The verdict is given before the call is admitted, so
// a replay costs no checks; the answer is then recorded on the same state, under the key's lock.

/** How long an idempotency key answers with its first call's results (spec 4.8 `idempotency.expires_at`). */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;

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
