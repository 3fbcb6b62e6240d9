import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/errors.js';
import { PENDING_STATUSES, type Status } from '../mutation/events.js';
import type { Action, TargetType } from '../mutation/payloads.js';
import { creationEventSchemas, type CreationEvent } from './events.js';
import { canonicalJson, sha256 } from '../shared/canonical.js';

// Identical creations (spec 3.4): one stream per (account, parent, action, payload) naming the
// receipt of each identical creation requested; a new one is refused while the last is pending.
// That receipt's status lives in its own stream: the command layer reads it into the command.

/** The stream id (after `creation-`) of a creation: the same whatever the payload's key order. */
export const creationStreamId = (
  account_id: string,
  target: { type: string; id: string },
  action: string,
  payload: unknown,
): string =>
  sha256(`${account_id}\u0000${target.type}\u0000${target.id}\u0000${action}\u0000${canonicalJson(payload)}`);

export interface CreationGuardState {
  /** the receipt of the latest identical creation requested */
  last: string | null;
}

export interface RequestCreation {
  type: 'RequestCreation';
  receipt_id: string;
  action: Action;
  /** the parent's type, which the refusal names */
  target_type: TargetType;
  at: string;
  /** the status of the receipt the state names last; null when none, or its admission never completed */
  last_status: Status | null;
}

export const creationGuardDecider: Decider<RequestCreation, CreationGuardState, CreationEvent> = {
  aggregate: 'creation',
  schemas: creationEventSchemas,
  initialState: () => ({ last: null }),
  evolve: (_state, event) => ({ last: event.data.receipt_id }),
  decide(command, { last }) {
    const status = command.last_status;
    if (last && status && (PENDING_STATUSES as readonly Status[]).includes(status))
      throw new DomainError(
        'invalid',
        `an identical ${command.action} on this ${command.target_type} is already ${status} (receipt ${last}); it is refused until that one settles`,
        { pending_receipt_id: last },
      );
    return [{ type: 'CreationRequested', data: { receipt_id: command.receipt_id, at: command.at } }];
  },
};
