import {
  controlStreamId,
  dispatchControlDecider,
  type DispatchControlCommand,
} from '../../domain/dispatch-control/decide.js';
import type { DispatchControlEvent } from '../../domain/dispatch-control/events.js';
import { DomainError } from '../../domain/shared/errors.js';
import { WrongExpectedVersion, type EventStore, type RecordedEvent } from '../../eventstore/port.js';
import { folded, handleCommand, streamName, type CommandContext, type CommandResult } from '../shared/handler.js';
import { adsEntityId } from '../../domain/observation/ids.js';

/**
 * Sets a listing's block flag or a campaign's Automation switch (update_listing and the operator
 * CLI call this). A flag that other writers keep changing past the handler's retries is `conflict`.
 */
export async function executeDispatchControlCommand(
  ctx: CommandContext,
  command: DispatchControlCommand,
): Promise<CommandResult<DispatchControlEvent>> {
  const id =
    command.type === 'SetListingBlock'
      ? controlStreamId('Listing', command.listing_id)
      : controlStreamId('Campaign', command.campaign_id);
  try {
    return await handleCommand(dispatchControlDecider, id, command, {
      ...ctx,
      metadata: { ...ctx.metadata, account_id: command.account_id },
    });
  } catch (err) {
    if (err instanceof WrongExpectedVersion)
      throw new DomainError('conflict', `${id.replace(':', ' ')} changed while saving; retry`);
    throw err;
  }
}

export interface Withheld {
  reason: 'listing_blocked' | 'automation_switch_off';
  message: string;
}

/** What decides whether a request may go: its account, target and the target's provider ids. */
export interface Withholdable {
  account_id: string;
  target: { type: string; id: string };
  provider: Record<string, string>;
}

/** The flag as its stream has it now (never a lagging read model: this is the check under the lock). */
export async function withheld(store: EventStore, type: 'Listing' | 'Campaign', id: string): Promise<boolean> {
  return flagFrom(await store.readStream(flagStream(controlStreamId(type, id))));
}

/** The stream of a flag, by its control id (controlStreamId). */
export const flagStream = (controlId: string): string => streamName(dispatchControlDecider.aggregate, controlId);

/** A flag from its stream as read (readStream, readStreams). */
export const flagFrom = (recorded: readonly RecordedEvent[]): boolean =>
  folded(dispatchControlDecider, recorded).state.withheld ?? false;

/** Flags whose reads began before the request was decided on, by control id (controlStreamId). */
export type EarlyFlags = ReadonlyMap<string, Promise<boolean>>;

/** Begins reading these listings' flags (admission: beside the lookup of the request's target). */
export function readFlagsEarly(store: EventStore, listingIds: readonly string[]): EarlyFlags {
  return new Map(
    [...new Set(listingIds)].map((id) => {
      const read = withheld(store, 'Listing', id);
      read.catch(() => undefined); // awaited by withheldReason, unless the request is refused first
      return [controlStreamId('Listing', id), read];
    }),
  );
}

/** The listings (each once) and the campaign whose flags decide whether `r` may go. */
function withholding(r: Withholdable): { listings: string[]; campaign: string | null } {
  // each once: a run's request to its own listing names it twice
  const listings = new Set([
    ...(r.target.type === 'Listing' ? [r.target.id] : []),
    ...(r.provider.listingId ? [r.provider.listingId] : []),
    // the listing whose automation run asked for it (any target type)
    ...(r.provider.sourceListingId ? [r.provider.sourceListingId] : []),
  ]);
  const campaign =
    r.target.type === 'Campaign'
      ? r.target.id
      : r.provider.campaignId && r.provider.profileId
        ? adsEntityId('campaign', r.account_id, r.provider.profileId, r.provider.campaignId)
        : null;
  return { listings: [...listings], campaign };
}

/** The control ids (controlStreamId) of the flags withheldReason reads for `r`, to read them ahead. */
export function flagsOf(r: Withholdable): string[] {
  const { listings, campaign } = withholding(r);
  return [
    ...listings.map((l) => controlStreamId('Listing', l)),
    ...(campaign ? [controlStreamId('Campaign', campaign)] : []),
  ];
}

/**
 * Why this request must not be sent, or null (spec 3.3, 3.4, 3.5): its listing is blocked (a
 * Listing target, the listing an ad advertises, provider id `listingId`, or the listing whose
 * automation run made the request, `sourceListingId`), or the
 * campaign it touches has its Automation switch off. Checked at admission and again under the
 * target lock just before sending; a later unblock never releases a receipt blocked either way.
 * `early`: flags read ahead (the others are read now).
 */
export async function withheldReason(
  store: EventStore,
  r: Withholdable,
  early: EarlyFlags = new Map(),
): Promise<Withheld | null> {
  const flag = (type: 'Listing' | 'Campaign', id: string) =>
    early.get(controlStreamId(type, id)) ?? withheld(store, type, id);
  const { listings, campaign } = withholding(r);
  for (const listing of listings) {
    if (await flag('Listing', listing))
      return {
        reason: 'listing_blocked',
        message: `listing ${listing} is blocked; allow it with update_listing (blocked requests are not replayed)`,
      };
  }
  if (campaign && (await flag('Campaign', campaign)))
    return { reason: 'automation_switch_off', message: `campaign ${campaign} has its Automation switch off` };
  return null;
}
