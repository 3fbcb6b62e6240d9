import { automationDecider } from '../../domain/automation/decide.js';
import type { AutomationState } from '../../domain/automation/state.js';
import type { Decider, DomainEvent } from '../../domain/shared/decider.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { StreamAccount } from '../../domain/stream/eligibility.js';
import type { EventStore } from '../../eventstore/port.js';
import type { AccountView } from '../../projections/accounts/queries.js';
import { aggregateStream, handleCommand } from '../shared/handler.js';

// What every automation command shares: who acts, on which accounts, and whether it records
// (the demo endpoint decides everything and records nothing, spec 1.4).

export interface AutomationCall {
  store: EventStore;
  userId: string;
  /** the caller's accounts: an automation on any other reads as missing (spec 5 rule 4) */
  accounts: readonly AccountView[];
  at: Date;
  correlationId: string;
  /** decide, append nothing */
  simulate: boolean;
}

/** Decides the command on the stream's state; records the events unless the call is simulated. */
export async function decideAndRecord<C, S, E extends DomainEvent>(
  call: AutomationCall,
  decider: Decider<C, S, E>,
  id: string,
  command: C,
  maxAttempts?: number,
): Promise<E[]> {
  if (call.simulate) {
    const { state } = await aggregateStream(call.store, decider, id);
    return decider.decide(command, state);
  }
  const metadata = { actor: { kind: 'user' as const, id: call.userId }, correlation_id: call.correlationId };
  return (await handleCommand(decider, id, command, { store: call.store, metadata, maxAttempts })).events;
}

export const who = (call: AutomationCall, automation_id: string) => ({
  automation_id,
  by: call.userId,
  at: call.at.toISOString(),
});

export type OwnedAutomation = AutomationState & { automation_id: string; account: AccountView };

/** The automation as its stream has it, when it is on one of the caller's accounts. */
export async function ownedAutomation(call: AutomationCall, automation_id: string): Promise<OwnedAutomation> {
  const id = automation_id.trim().toLowerCase();
  const { state } = await aggregateStream(call.store, automationDecider, id);
  const account = call.accounts.find((a) => a.id === state.account_id);
  if (state.status === null || !account)
    throw new DomainError('automation_not_found', `automation_id: no automation '${automation_id}' on your accounts`, {
      argument: 'automation_id',
    });
  return { ...state, automation_id: id, account };
}

export const streamAccount = (a: AccountView): StreamAccount => ({
  id: a.id,
  name: a.name,
  entity_type: a.entity_type,
  connected: { selling: a.selling !== null, ads: a.ads !== null },
});
