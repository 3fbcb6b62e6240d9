import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/errors.js';
import { subscriptionEventSchemas, type SubscriptionEvent } from './subscription-events.js';
import type { StreamType } from './types.js';

// The subscription of one event type on one account. The subscriptions sweep asks for it or lets
// it go (Request…); the worker's jobs record what the marketplace answered (Record…), and that an
// active one is gone at the marketplace (RecordLost: a marketplace that restarted, or dropped it
// or its destination), which asks for it again. A command
// that finds its work already done records nothing, so a job or sweep run twice changes nothing;
// an answer that no longer fits (a subscribe answered after the unsubscribe was asked) is a
// `conflict`, and the unsubscribe job, which reads the marketplace, cleans up after it.

export type SubscriptionStatus = 'inactive' | 'requested' | 'pending' | 'active' | 'failed' | 'unsubscribing';

export interface SubscriptionState {
  status: SubscriptionStatus;
  /** requests made so far */
  requests: number;
  subscription_ids: string[];
  destination_id: string | null;
  error: string | null;
}

type At = { account_id: string; stream_type: string; at: string };
type Ids = { subscription_ids: string[]; destination_id: string | null };
export type SubscriptionCommand =
  /** `seen`: the status the sweep decided on (its read model may lag the stream) */
  | (At & { type: 'RequestSubscription'; seen: SubscriptionStatus })
  | (At & Ids & { type: 'RecordPending' })
  | (At & Ids & { type: 'RecordSubscribed' })
  | (At & { type: 'RecordFailed'; error: string })
  | (At & { type: 'RecordLost'; error: string })
  | (At & { type: 'RequestUnsubscribe' })
  | (At & { type: 'RecordUnsubscribed' });

export const subscriptionId = (account_id: string, stream_type: string): string => `${account_id}.${stream_type}`;

const sameIds = (state: SubscriptionState, ids: Ids) =>
  state.destination_id === ids.destination_id &&
  state.subscription_ids.length === ids.subscription_ids.length &&
  state.subscription_ids.every((id, i) => ids.subscription_ids[i] === id);

function refuse(command: SubscriptionCommand, state: SubscriptionState): never {
  throw new DomainError(
    'conflict',
    `${command.type}: the ${command.stream_type} subscription of account ${command.account_id} is ${state.status}`,
  );
}

export function decide(command: SubscriptionCommand, state: SubscriptionState): SubscriptionEvent[] {
  const { at } = command;
  const ids = (c: Ids): Ids => ({ subscription_ids: c.subscription_ids, destination_id: c.destination_id });
  switch (command.type) {
    case 'RequestSubscription':
      if (state.status === 'requested' || state.status === 'pending' || state.status === 'active') return [];
      // decided on an older status (a failure not yet projected looks inactive): the next sweep decides again
      if (state.status !== command.seen) return [];
      return [
        {
          type: 'SubscriptionRequested',
          data: { account_id: command.account_id, stream_type: command.stream_type, request: state.requests + 1, at },
        },
      ];
    case 'RecordPending':
      if (state.status === 'pending' && sameIds(state, command)) return [];
      if (state.status !== 'requested' && state.status !== 'pending') return refuse(command, state);
      return [{ type: 'SubscriptionPending', data: { ...ids(command), at } }];
    case 'RecordSubscribed':
      if (state.status === 'active' && sameIds(state, command)) return [];
      if (state.status !== 'requested' && state.status !== 'pending') return refuse(command, state);
      return [{ type: 'SubscriptionActivated', data: { ...ids(command), at } }];
    case 'RecordFailed':
      if (state.status === 'failed') return [];
      if (state.status !== 'requested' && state.status !== 'pending') return refuse(command, state);
      return [{ type: 'SubscriptionFailed', data: { error: command.error, at } }];
    case 'RecordLost':
      // already asked for again
      if (state.status === 'requested') return [];
      if (state.status !== 'active') return refuse(command, state);
      return [{ type: 'SubscriptionLost', data: { error: command.error, at } }];
    case 'RequestUnsubscribe':
      if (state.status === 'inactive' || state.status === 'unsubscribing') return [];
      return [{ type: 'UnsubscribeRequested', data: { at } }];
    case 'RecordUnsubscribed':
      if (state.status === 'inactive') return [];
      if (state.status !== 'unsubscribing') return refuse(command, state);
      return [{ type: 'Unsubscribed', data: { at } }];
  }
}

export function evolve(state: SubscriptionState, event: SubscriptionEvent): SubscriptionState {
  switch (event.type) {
    case 'SubscriptionRequested':
      return { ...state, status: 'requested', requests: event.data.request, error: null };
    case 'SubscriptionPending':
    case 'SubscriptionActivated': {
      const { subscription_ids, destination_id } = event.data;
      const status = event.type === 'SubscriptionPending' ? 'pending' : 'active';
      return { ...state, status, subscription_ids, destination_id, error: null };
    }
    case 'SubscriptionFailed':
      return { ...state, status: 'failed', error: event.data.error };
    case 'SubscriptionLost':
      // a new request: an ads create takes new tokens, not those of the subscriptions lost
      return {
        ...state,
        status: 'requested',
        requests: state.requests + 1,
        subscription_ids: [],
        destination_id: null,
        error: event.data.error,
      };
    case 'UnsubscribeRequested':
      return { ...state, status: 'unsubscribing' };
    case 'Unsubscribed':
      return { ...state, status: 'inactive', subscription_ids: [], destination_id: null, error: null };
  }
}

export const subscriptionDecider: Decider<SubscriptionCommand, SubscriptionState, SubscriptionEvent> = {
  aggregate: 'subscription',
  schemas: subscriptionEventSchemas,
  initialState: () => ({ status: 'inactive', requests: 0, subscription_ids: [], destination_id: null, error: null }),
  evolve,
  decide,
};

/** What the sweep knows of one (account, event type) when it decides whether it should be subscribed. */
export interface SubscriptionNeed {
  type: StreamType;
  /** the account has the connection the type runs on (and, for a seller type, is a seller) */
  runnable: boolean;
  /** an automation for the type is live on the account */
  live: boolean;
  /** when the last live automation of the type stopped (null: none ever, or one is live) */
  released_at: Date | null;
}

/**
 * docs/decisions/066-stream-subscriptions.md: an `always` type is wanted while the account can
 * run it; a `while_needed` type while an automation for it is live and for `graceMs` after the last
 * one stops, so archiving one and activating its successor doesn't unsubscribe and subscribe again.
 */
export function subscriptionWanted(need: SubscriptionNeed, now: Date, graceMs: number): boolean {
  if (!need.runnable) return false;
  if (need.type.policy === 'always') return true;
  if (need.type.policy === 'not_required') return false;
  return need.live || (need.released_at !== null && now.getTime() - need.released_at.getTime() < graceMs);
}
