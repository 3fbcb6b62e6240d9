import type { LiveSlotEvent } from '../../src/domain/automation/events.js';
import type { SubscriptionEvent } from '../../src/domain/stream/subscription-events.js';
import { createDb } from '../../src/infra/db.js';
import { streamsProjection } from '../../src/projections/streams/projection.js';
import { account_id, at, automation_id } from '../support/automation.js';
import { assertApplyTwiceSameResult, inStream, projectionSpec, recordedEvents } from '../support/projections.js';

// The streams read model: the subscription's state as its decider folds it, and the live slot's
// automation with the time the last one stopped (where the sweep's grace period starts).

const stream_type = 'ANY_OFFER_CHANGED';
const later = '2026-11-25T10:05:00.000Z';
const subscription = (events: SubscriptionEvent[]) => inStream(`subscription-${account_id}.${stream_type}`, events);
const slot = (events: LiveSlotEvent['data'][]) =>
  inStream(
    `automation_live-${account_id}.${stream_type}`,
    events.map((data) => ({ type: 'LiveAutomationChanged', data })),
  );
const requested: SubscriptionEvent = {
  type: 'SubscriptionRequested',
  data: { account_id, stream_type, request: 1, at },
};
const ids = { subscription_ids: ['sub-1'], destination_id: 'dest-1' };
const history = [
  ...slot([{ account_id, stream_type, automation_id, previous: null, at }]),
  ...subscription([requested, { type: 'SubscriptionActivated', data: { ...ids, at } }]),
];
const given = projectionSpec(streamsProjection);

describe('streams projection', () => {
  it('a live automation and its confirmed subscription make one active row', () =>
    given([])
      .when(history)
      .then('streams', [
        {
          account_id,
          stream_type,
          status: 'active',
          subscription_ids: ['sub-1'],
          destination_id: 'dest-1',
          error: null,
          live_automation_id: automation_id,
          released_at: null,
        },
      ]));

  it('the slot going empty keeps the subscription and says when; a failure keeps its error', () =>
    given(history)
      .when([
        ...slot([{ account_id, stream_type, automation_id: null, previous: automation_id, at: later }]),
        ...subscription([
          { type: 'UnsubscribeRequested', data: { at: later } },
          { type: 'Unsubscribed', data: { at: later } },
          { ...requested, data: { ...requested.data, request: 2 } },
          { type: 'SubscriptionFailed', data: { error: '400 InvalidInput: no', at: later } },
        ]),
      ])
      .then('streams', [
        {
          status: 'failed',
          requests: 2,
          subscription_ids: [],
          error: '400 InvalidInput: no',
          live_automation_id: null,
          released_at: new Date(later),
        },
      ]));

  it('applying the same events twice changes nothing', async () => {
    const db = createDb(process.env.DATABASE_URL!);
    try {
      await assertApplyTwiceSameResult(db, streamsProjection, recordedEvents(history));
    } finally {
      await db.destroy();
    }
  });
});
