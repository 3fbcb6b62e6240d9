import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/errors.js';
import { addDays } from '../shared/calendar.js';
import { feedbackEventSchemas, type FeedbackEvent, type FeedbackKind } from './events.js';

// Spec 4.10, 8: 20 bug reports and 20 ideas per user per day (the UTC day of the submission).

export const FEEDBACK_PER_DAY = 20;

export type FeedbackCommand = {
  type: 'SubmitFeedback';
} & FeedbackEvent['data'];

/** How many of the kind the user submitted that day. */
export interface FeedbackState {
  submitted: number;
}

/** The UTC day an instant falls on (YYYY-MM-DD). */
export const utcDay = (at: string): string => new Date(at).toISOString().slice(0, 10);

/** The stream id of a user's submissions of a kind on a UTC day. */
export const feedbackStreamId = (kind: FeedbackKind, userId: string, at: string): string =>
  `${kind}:${userId}:${utcDay(at)}`;

const NOUN: Record<FeedbackKind, string> = { bug: 'bug reports', idea: 'ideas' };

export function decide(command: FeedbackCommand, state: FeedbackState): FeedbackEvent[] {
  if (state.submitted >= FEEDBACK_PER_DAY) {
    const resetsAt = `${addDays(utcDay(command.submitted_at), 1)}T00:00:00.000Z`;
    throw new DomainError(
      'rate_limited',
      `${FEEDBACK_PER_DAY} ${NOUN[command.kind]} per day: the limit resets at ${resetsAt} (midnight UTC)`,
      { limit: FEEDBACK_PER_DAY, resets_at: resetsAt },
    );
  }
  const { type: _, ...data } = command;
  return [{ type: 'FeedbackSubmitted', data }];
}

export const evolve = (state: FeedbackState, _event: FeedbackEvent): FeedbackState => ({
  submitted: state.submitted + 1,
});

export const feedbackDecider: Decider<FeedbackCommand, FeedbackState, FeedbackEvent> = {
  aggregate: 'feedback',
  schemas: feedbackEventSchemas,
  initialState: () => ({ submitted: 0 }),
  evolve,
  decide,
};
