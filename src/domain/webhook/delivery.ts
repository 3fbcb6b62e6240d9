import type { Decider } from '../shared/decider.js';
import { webhookDeliveryEventSchemas, type DeliveryCause, type WebhookDeliveryEvent } from './events.js';
import { judgeAttempt, type AttemptResult, type DeliveryPolicy } from './retry.js';

// One delivery (spec 4.13): requested once, then one recorded attempt after another until one is
// delivered, one fails for good, or the attempts run out. A command that comes too late (the
// delivery already ended, or that attempt is already recorded: a job run twice) records nothing.

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

export interface DeliveryState {
  status: DeliveryStatus | null;
  account_id: string | null;
  webhook_id: string | null;
  /** a "send test": delivered to a disabled webhook too */
  test: boolean;
  body: string;
  attempts: number;
  next_attempt_at: string | null;
}

export const initialDeliveryState = (): DeliveryState => ({
  status: null,
  account_id: null,
  webhook_id: null,
  test: false,
  body: '',
  attempts: 0,
  next_attempt_at: null,
});

export function evolveDelivery(state: DeliveryState, event: WebhookDeliveryEvent): DeliveryState {
  switch (event.type) {
    case 'WebhookDeliveryRequested': {
      const { account_id, webhook_id, body, cause, at } = event.data;
      const test = cause.kind === 'test';
      return { ...state, status: 'pending', account_id, webhook_id, test, body, next_attempt_at: at };
    }
    case 'WebhookAttemptRecorded': {
      const { attempt, outcome, next_attempt_at } = event.data;
      const status = outcome === 'retry' ? 'pending' : outcome;
      return { ...state, status, attempts: attempt, next_attempt_at };
    }
    case 'WebhookDeliveryCancelled':
      return { ...state, status: 'cancelled', next_attempt_at: null };
  }
}

export type DeliveryCommand =
  | {
      type: 'RequestDelivery';
      delivery_id: string;
      account_id: string;
      webhook_id: string;
      webhook_name: string;
      body: string;
      cause: DeliveryCause;
      at: string;
    }
  | (AttemptResult & {
      type: 'RecordAttempt';
      attempt: number;
      started_at: string;
      duration_ms: number;
      response: string | null;
      policy: DeliveryPolicy;
      at: string;
    })
  | { type: 'CancelDelivery'; reason: string; at: string };

export function decideDelivery(command: DeliveryCommand, state: DeliveryState): WebhookDeliveryEvent[] {
  switch (command.type) {
    case 'RequestDelivery': {
      if (state.status !== null) return [];
      const { type: _, ...data } = command;
      return [{ type: 'WebhookDeliveryRequested', data }];
    }
    case 'RecordAttempt': {
      if (state.status !== 'pending' || command.attempt !== state.attempts + 1) return [];
      const judged = judgeAttempt(command.attempt, command, new Date(command.at), command.policy);
      const { attempt, started_at, duration_ms, status, response, at } = command;
      return [
        {
          type: 'WebhookAttemptRecorded',
          data: { attempt, started_at, duration_ms, status, response, ...judged, at },
        },
      ];
    }
    case 'CancelDelivery':
      return state.status === 'pending'
        ? [{ type: 'WebhookDeliveryCancelled', data: { reason: command.reason, at: command.at } }]
        : [];
  }
}

/** Stream `webhook_delivery-<delivery id>`. */
export const webhookDeliveryDecider: Decider<DeliveryCommand, DeliveryState, WebhookDeliveryEvent> = {
  aggregate: 'webhook_delivery',
  schemas: webhookDeliveryEventSchemas,
  initialState: initialDeliveryState,
  evolve: evolveDelivery,
  decide: decideDelivery,
};
