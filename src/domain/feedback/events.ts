import { z } from 'zod';
import type { EventUnion } from '../shared/decider.js';
import { instant } from '../shared/instant.js';

// Feedback from users (spec 4.10): bug reports and ideas, in the user's own words. One stream per
// user, kind and UTC day (`feedback-<kind>:<user id>:<YYYY-MM-DD>`), so the daily limit is the
// length of one short stream, decided under its revision.

export const FEEDBACK_KINDS = ['bug', 'idea'] as const;
export type FeedbackKind = (typeof FEEDBACK_KINDS)[number];

/** The longest value each field keeps, in characters (docs/decisions/114-feedback-limits.md). */
export const FEEDBACK_LENGTHS = {
  title: 200,
  what_happened: 4000,
  expected: 4000,
  tool_name: 100,
  detail: 4000,
} as const;

export const FeedbackSubmitted = z.object({
  feedback_id: z.uuid(),
  kind: z.enum(FEEDBACK_KINDS),
  user_id: z.uuid(),
  title: z.string().min(1).max(FEEDBACK_LENGTHS.title),
  what_happened: z.string().max(FEEDBACK_LENGTHS.what_happened).nullable(),
  expected: z.string().max(FEEDBACK_LENGTHS.expected).nullable(),
  tool_name: z.string().max(FEEDBACK_LENGTHS.tool_name).nullable(),
  detail: z.string().max(FEEDBACK_LENGTHS.detail).nullable(),
  submitted_at: instant,
});

export const feedbackEventSchemas = { FeedbackSubmitted } as const;
export type FeedbackEvent = EventUnion<typeof feedbackEventSchemas>;
