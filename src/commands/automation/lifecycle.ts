import { automationDecider } from '../../domain/automation/decide.js';
import type { OperationDependencies } from '../../domain/automation/events.js';
import { liveSlotDecider, liveSlotId } from '../../domain/automation/live-slot.js';
import { DomainError } from '../../domain/shared/errors.js';
import { newId } from '../../domain/shared/ids.js';
import { automationStreamType } from '../../domain/stream/eligibility.js';
import type { AccountView } from '../../projections/accounts/queries.js';
import { decideAndRecord, ownedAutomation, streamAccount, who, type AutomationCall } from './context.js';

// spec 3.1: create, duplicate, edit and archive. Activation, which also moves the live slot, is
// in activation.ts.

export interface NewAutomation {
  account: AccountView;
  stream_type: string;
  title: string;
  code: string;
  operation_dependencies: OperationDependencies;
}

/** A new draft; its id (spec 4.4). */
export async function createAutomation(call: AutomationCall, input: NewAutomation): Promise<string> {
  const t = automationStreamType(input.stream_type, streamAccount(input.account));
  const automation_id = newId();
  await decideAndRecord(call, automationDecider, automation_id, {
    type: 'CreateAutomation',
    ...who(call, automation_id),
    account_id: input.account.id,
    stream_type: t.code,
    title: input.title,
    code: input.code,
    operation_dependencies: input.operation_dependencies,
    source_automation_id: null,
  });
  return automation_id;
}

/** A new draft with the source's event type, code, title and dependencies (source draft or live). */
export async function duplicateAutomation(call: AutomationCall, source_id: string): Promise<string> {
  const source = await ownedAutomation(call, source_id);
  if (source.status === 'archived')
    throw new DomainError(
      'invalid',
      `automation_id: automation '${source_id}' is archived; only a draft or live automation can be duplicated`,
      { argument: 'automation_id' },
    );
  const automation_id = newId();
  await decideAndRecord(call, automationDecider, automation_id, {
    type: 'CreateAutomation',
    ...who(call, automation_id),
    account_id: source.account.id,
    stream_type: source.stream_type!,
    title: `${source.title} (copy)`,
    code: source.code,
    operation_dependencies: source.operation_dependencies,
    source_automation_id: source.automation_id,
  });
  return automation_id;
}

export interface AutomationEdit {
  code?: string;
  title?: string;
  operation_dependencies?: OperationDependencies;
}

/** Code, title and dependencies edits; the state stays as it is (spec 3.1). */
export async function editAutomation(call: AutomationCall, automation_id: string, edit: AutomationEdit) {
  const { automation_id: id, status } = await ownedAutomation(call, automation_id);
  const saved = await decideAndRecord(call, automationDecider, id, {
    type: 'EditAutomation',
    ...who(call, id),
    ...edit,
  });
  return { saved, status: status! };
}

/**
 * Deactivates a live automation back to a draft (a draft stays as it is; an archived one is
 * refused): the live slot of its event type is released first, as archiving does (the slot does not
 * name an archived one), then its stream records the deactivation; the same call again finishes one
 * that crashed between the two. An extension of spec 3.1 (the
 * console's Deactivate; docs/decisions/158-console-automations.md).
 */
export async function deactivateAutomation(call: AutomationCall, automation_id: string) {
  const owned = await ownedAutomation(call, automation_id);
  const { automation_id: id } = owned;
  await releaseLiveSlot(call, owned);
  return decideAndRecord(call, automationDecider, id, {
    type: 'DeactivateAutomation',
    ...who(call, id),
    replaced_by: null,
  });
}

/**
 * Archives it, releasing its event type's live slot first when the slot names it (whatever its
 * own stream says, so an activation that crashed half-way is undone too), then deactivating and
 * archiving it in its stream.
 */
export async function archiveAutomation(call: AutomationCall, automation_id: string) {
  const owned = await ownedAutomation(call, automation_id);
  const { automation_id: id } = owned;
  await releaseLiveSlot(call, owned);
  return decideAndRecord(call, automationDecider, id, { type: 'ArchiveAutomation', ...who(call, id) });
}

/** Frees the live slot of the automation's event type if it names the automation (else nothing). */
async function releaseLiveSlot(call: AutomationCall, owned: Awaited<ReturnType<typeof ownedAutomation>>) {
  const { account, stream_type, automation_id } = owned;
  await decideAndRecord(call, liveSlotDecider, liveSlotId(account.id, stream_type!), {
    type: 'ReleaseLive',
    account_id: account.id,
    stream_type: stream_type!,
    automation_id,
    at: call.at.toISOString(),
  });
}
