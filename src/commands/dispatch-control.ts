import { controlStreamId, dispatchControlDecider, type DispatchControlCommand } from '../domain/dispatch-control/decide.js';
import type { DispatchControlEvent } from '../domain/dispatch-control/events.js';
import { handleCommand, type CommandContext, type CommandResult } from './handler.js';

/** Sets a listing's block flag or a campaign's Automation switch (update_listing and the ads tools call this). */
export async function executeDispatchControlCommand(ctx: CommandContext, command: DispatchControlCommand): Promise<CommandResult<DispatchControlEvent>> {
  const id = command.type === 'SetListingBlock' ? controlStreamId('Listing', command.listing_id) : controlStreamId('Campaign', command.campaign_id);
  return handleCommand(dispatchControlDecider, id, command, { ...ctx, metadata: { ...ctx.metadata, account_id: command.account_id } });
}
