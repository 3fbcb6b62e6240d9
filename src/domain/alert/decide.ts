import type { Decider } from '../shared/decider.js';
import { stableId } from '../shared/ids.js';
import { alertEventSchemas, type AlertDestination, type AlertEvent, type AlertKind } from './events.js';

// The alerts of one account. A sweep reports every condition it finds now; a condition not open
// yet is raised (once: while it stays found, it is not raised again), an open one no longer found
// clears. Raised alerts stay unsent until their hand-off to the destination is recorded, so a
// sweep that died between the two sends them next time. Without a destination nothing is raised.

export interface Finding {
  key: string;
  kind: AlertKind;
  detail: string;
}

export type AlertCommand =
  | { type: 'SetAlertDestination'; account_id: string; destination: AlertDestination | null; by: string; at: string }
  | { type: 'RecordFindings'; account_id: string; findings: readonly Finding[]; at: string }
  | { type: 'MarkAlertSent'; alert_id: string; at: string; refused: string | null };

export interface UnsentAlert {
  alert_id: string;
  kind: AlertKind;
  detail: string;
  destination: AlertDestination;
  at: string;
}

export interface AlertState {
  destination: AlertDestination | null;
  /** the keys of the conditions raised and not cleared since */
  open: ReadonlySet<string>;
  unsent: readonly UnsentAlert[];
  /** how many alerts were raised: a condition's next alert has a new id */
  raised: number;
}

const sameDestination = (a: AlertDestination | null, b: AlertDestination | null) =>
  JSON.stringify(a) === JSON.stringify(b);

export function decide(command: AlertCommand, state: AlertState): AlertEvent[] {
  switch (command.type) {
    case 'SetAlertDestination': {
      if (sameDestination(command.destination, state.destination)) return [];
      const { type: _, ...data } = command;
      return [{ type: 'AlertDestinationSet', data }];
    }
    case 'RecordFindings': {
      const destination = state.destination;
      if (!destination) return [];
      const found = new Set(command.findings.map((f) => f.key));
      const raised: AlertEvent[] = command.findings
        .filter((f, i) => !state.open.has(f.key) && command.findings.findIndex((g) => g.key === f.key) === i)
        .map((f, i) => ({
          type: 'AlertRaised',
          data: {
            account_id: command.account_id,
            // the n-th alert of the account: the same sweep run twice raises the same ids
            alert_id: stableId('alert', `${command.account_id}#${state.raised + i}`),
            key: f.key,
            kind: f.kind,
            detail: f.detail,
            destination,
            at: command.at,
          },
        }));
      const cleared: AlertEvent[] = [...state.open]
        .filter((key) => !found.has(key))
        .map((key) => ({ type: 'AlertCleared', data: { key, at: command.at } }));
      return [...raised, ...cleared];
    }
    case 'MarkAlertSent':
      return state.unsent.some((u) => u.alert_id === command.alert_id)
        ? [{ type: 'AlertSent', data: { alert_id: command.alert_id, at: command.at, refused: command.refused } }]
        : [];
  }
}

export function evolve(state: AlertState, event: AlertEvent): AlertState {
  switch (event.type) {
    case 'AlertDestinationSet':
      return { ...state, destination: event.data.destination };
    case 'AlertRaised': {
      const { alert_id, kind, detail, destination, at } = event.data;
      return {
        ...state,
        open: new Set([...state.open, event.data.key]),
        unsent: [...state.unsent, { alert_id, kind, detail, destination, at }],
        raised: state.raised + 1,
      };
    }
    case 'AlertSent':
      return { ...state, unsent: state.unsent.filter((u) => u.alert_id !== event.data.alert_id) };
    case 'AlertCleared':
      return { ...state, open: new Set([...state.open].filter((k) => k !== event.data.key)) };
  }
}

export const alertDecider: Decider<AlertCommand, AlertState, AlertEvent> = {
  aggregate: 'alert',
  schemas: alertEventSchemas,
  initialState: () => ({ destination: null, open: new Set(), unsent: [], raised: 0 }),
  evolve,
  decide,
};
