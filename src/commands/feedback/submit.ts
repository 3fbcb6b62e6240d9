import { feedbackDecider, feedbackStreamId, type FeedbackCommand } from '../../domain/feedback/decide.js';
import type { FeedbackEvent } from '../../domain/feedback/events.js';
import { handleCommand, type CommandContext, type CommandResult } from '../shared/handler.js';

/** Records a bug report or an idea in the stream of its user, kind and day (refused past the daily limit). */
export function submitFeedback(
  ctx: CommandContext,
  command: Omit<FeedbackCommand, 'type'>,
): Promise<CommandResult<FeedbackEvent>> {
  return handleCommand(
    feedbackDecider,
    feedbackStreamId(command.kind, command.user_id, command.submitted_at),
    { type: 'SubmitFeedback', ...command },
    ctx,
  );
}
