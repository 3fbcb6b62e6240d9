import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import {
  FEEDBACK_PER_DAY,
  feedbackDecider,
  feedbackStreamId,
  type FeedbackCommand,
} from '../../src/domain/feedback/decide.js';
import type { FeedbackEvent } from '../../src/domain/feedback/events.js';
import { given } from '../support/gwt.js';

// Spec 4.10, 8: each submission recorded as written; 20 of a kind per user per UTC day.

const user = randomUUID();
const command = (n: number, at = '2026-12-02T10:00:00.000Z'): FeedbackCommand => ({
  type: 'SubmitFeedback',
  feedback_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  kind: 'bug',
  user_id: user,
  title: `bug ${n}`,
  what_happened: 'the list came back empty',
  expected: null,
  tool_name: 'list_listings',
  detail: null,
  submitted_at: at,
});
const submitted = (c: FeedbackCommand): FeedbackEvent => {
  const { type: _, ...data } = c;
  return { type: 'FeedbackSubmitted', data };
};

describe('feedback decider', () => {
  it('records a submission as given', () => {
    given(feedbackDecider, [])
      .when(command(1))
      .then([submitted(command(1))]);
  });

  it(`records the ${FEEDBACK_PER_DAY}th of the day`, () => {
    const day = Array.from({ length: FEEDBACK_PER_DAY - 1 }, (_, i) => submitted(command(i)));
    given(feedbackDecider, day)
      .when(command(99))
      .then([submitted(command(99))]);
  });

  it('refuses the next one rate_limited, saying when the limit resets', () => {
    const day = Array.from({ length: FEEDBACK_PER_DAY }, (_, i) => submitted(command(i)));
    const refused = given(feedbackDecider, day)
      .when(command(99, '2026-12-02T23:59:59.000Z'))
      .thenThrows('rate_limited', /20 bug reports per day: the limit resets at 2026-12-03T00:00:00.000Z/);
    expect(refused.extra).to.deep.equal({ limit: 20, resets_at: '2026-12-03T00:00:00.000Z' });
  });

  it('counts per user, kind and UTC day: one stream each', () => {
    const at = '2026-12-02T23:30:00-02:00'; // 01:30 UTC on the 3rd
    expect(feedbackStreamId('bug', user, at)).to.equal(`bug:${user}:2026-12-03`);
    expect(feedbackStreamId('idea', user, at)).to.equal(`idea:${user}:2026-12-03`);
    expect(feedbackStreamId('bug', user, '2026-12-02T23:59:59Z')).to.equal(`bug:${user}:2026-12-02`);
  });
});
