import { z } from 'zod';
import { submitFeedback } from '../commands/feedback/submit.js';
import { FEEDBACK_PER_DAY } from '../domain/feedback/decide.js';
import { FEEDBACK_LENGTHS, type FeedbackKind } from '../domain/feedback/events.js';
import { newId } from '../domain/shared/ids.js';
import { defineTool, type Tool } from './tool.js';
import { recordingStore } from './admission.js';

// report_bug and suggest_idea (spec 4.10): the same five fields, recorded as the user's own
// words; 20 of each kind per user per UTC day (rate_limited past that). Not on the demo.

// the listing states each bound (maxLength) beside the description
const text = (max: number, what: string) => z.string().trim().max(max).describe(what);

/** What each field asks for, per kind: the spec words them differently for an idea. */
interface FieldWords {
  what_happened: string;
  expected: string;
}

export function feedbackTool(
  name: 'report_bug' | 'suggest_idea',
  kind: FeedbackKind,
  spec: { title: string; description: string; words: FieldWords },
): Tool {
  return defineTool({
    name,
    description: `${spec.description} Summarize in your own words: no raw payloads, no business data, no secrets. At most ${FEEDBACK_PER_DAY} per day per user (rate_limited past that, saying when it resets).`,
    annotations: {
      title: spec.title,
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
    input: {
      title: text(FEEDBACK_LENGTHS.title, 'a one-line summary').min(1),
      what_happened: text(FEEDBACK_LENGTHS.what_happened, spec.words.what_happened).optional(),
      expected: text(FEEDBACK_LENGTHS.expected, spec.words.expected).optional(),
      tool_name: text(FEEDBACK_LENGTHS.tool_name, 'the tool it is about, if any').optional(),
      detail: text(FEEDBACK_LENGTHS.detail, 'anything else that helps, summarized').optional(),
    },
    output: z.object({
      feedback_id: z.string().describe('the id operators see it under'),
      submitted_at: z.string().describe('when it was recorded (ISO 8601)'),
      remaining_today: z.number().int().describe(`how many more of this kind you may send today (UTC)`),
    }),
    async handler(input, ctx) {
      const submitted_at = ctx.now().toISOString();
      const feedback_id = newId();
      const { revision } = await submitFeedback(
        {
          store: recordingStore(ctx),
          metadata: { actor: { kind: 'user', id: ctx.userId }, correlation_id: ctx.requestId },
        },
        {
          feedback_id,
          kind,
          user_id: ctx.userId,
          title: input.title,
          what_happened: input.what_happened || null,
          expected: input.expected || null,
          tool_name: input.tool_name || null,
          detail: input.detail || null,
          submitted_at,
        },
      );
      // the stream is the user's submissions of the kind that day: its revision counts them
      return { feedback_id, submitted_at, remaining_today: FEEDBACK_PER_DAY - 1 - Number(revision) };
    },
  });
}
