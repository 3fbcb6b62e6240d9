import { accountDecider, type AccountCommand } from '../../domain/account/decide.js';
import { handleCommand, type CommandContext } from '../shared/handler.js';

export async function executeAccountCommand(ctx: CommandContext, command: AccountCommand): Promise<number> {
  const { events } = await handleCommand(accountDecider, command.account_id, command, ctx);
  return events.length;
}
