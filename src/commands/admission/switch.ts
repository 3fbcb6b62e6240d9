import { SWITCH_ID, switchDecider, type SwitchCommand } from '../../domain/admission/switch.js';
import type { Position } from '../../eventstore/port.js';
import { handleCommand, type CommandContext } from '../shared/handler.js';

/** Pauses or allows new provider write requests (the operator CLI); `changed` is false when it already was so. */
export async function setAdmissions(
  ctx: CommandContext,
  command: SwitchCommand,
): Promise<{ changed: boolean; position: Position | null }> {
  const { events, position } = await handleCommand(switchDecider, SWITCH_ID, command, ctx);
  return { changed: events.length > 0, position };
}
