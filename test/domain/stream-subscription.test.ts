import { expect } from 'chai';
import {
  subscriptionDecider,
  subscriptionWanted,
  type SubscriptionCommand,
  type SubscriptionStatus,
} from '../../src/domain/stream/subscription.js';
import type { SubscriptionEvent } from '../../src/domain/stream/subscription-events.js';
import { streamType } from '../../src/domain/stream/types.js';
import { account_id, at } from '../support/automation.js';
import { given } from '../support/gwt.js';

// The subscription of one event type on one account: every state × every command.

const stream_type = 'BUDGET_USAGE';
const ids = { subscription_ids: ['amzn1.sub.1', 'amzn1.sub.2'], destination_id: null };
const other = { subscription_ids: ['amzn1.sub.3'], destination_id: null };
const error = '400 InvalidInput: destination refused';

const requested = (request = 1): SubscriptionEvent => ({
  type: 'SubscriptionRequested',
  data: { account_id, stream_type, request, at },
});
const pending: SubscriptionEvent = { type: 'SubscriptionPending', data: { ...ids, at } };
const activated: SubscriptionEvent = { type: 'SubscriptionActivated', data: { ...ids, at } };
const failed: SubscriptionEvent = { type: 'SubscriptionFailed', data: { error, at } };
const unsubscribing: SubscriptionEvent = { type: 'UnsubscribeRequested', data: { at } };
const unsubscribed: SubscriptionEvent = { type: 'Unsubscribed', data: { at } };

const cmd = <T extends SubscriptionCommand['type']>(type: T, extra: object = {}) =>
  ({ type, account_id, stream_type, at, ...extra }) as Extract<SubscriptionCommand, { type: T }>;
const request = (seen: SubscriptionStatus) => cmd('RequestSubscription', { seen });
const recordPending = cmd('RecordPending', ids);
const recordSubscribed = cmd('RecordSubscribed', ids);
const recordFailed = cmd('RecordFailed', { error });
const unsubscribe = cmd('RequestUnsubscribe');
const recordUnsubscribed = cmd('RecordUnsubscribed');
const lostError = 'the marketplace has no BUDGET_USAGE subscription amzn1.sub.1';
const recordLost = cmd('RecordLost', { error: lostError });
const lost: SubscriptionEvent = { type: 'SubscriptionLost', data: { error: lostError, at } };

const states = {
  inactive: [] as SubscriptionEvent[],
  requested: [requested()],
  pending: [requested(), pending],
  active: [requested(), activated],
  failed: [requested(), failed],
  unsubscribing: [requested(), activated, unsubscribing],
  'inactive again': [requested(), activated, unsubscribing, unsubscribed],
  lost: [requested(), activated, lost],
};

describe('stream subscription decider', () => {
  describe('RequestSubscription', () => {
    it('inactive: requested, request 1', () =>
      given(subscriptionDecider, states.inactive)
        .when(request('inactive'))
        .then([requested(1)]));
    it('inactive again: requested, request 2 (a new ads token)', () =>
      given(subscriptionDecider, states['inactive again'])
        .when(request('inactive'))
        .then([requested(2)]));
    it('failed: requested again', () =>
      given(subscriptionDecider, states.failed)
        .when(request('failed'))
        .then([requested(2)]));
    it('failed, seen inactive (the failure not projected yet): nothing, no retry before it is due', () =>
      given(subscriptionDecider, states.failed).when(request('inactive')).then([]));
    it('unsubscribing: requested again (the job subscribes instead of letting go)', () =>
      given(subscriptionDecider, states.unsubscribing)
        .when(request('unsubscribing'))
        .then([requested(2)]));
    for (const s of ['requested', 'pending', 'active'] as const)
      it(`${s}: nothing (already under way or done)`, () =>
        given(subscriptionDecider, states[s]).when(request('inactive')).then([]));
  });

  describe('RecordPending', () => {
    it('requested: pending with the provider ids', () =>
      given(subscriptionDecider, states.requested).when(recordPending).then([pending]));
    it('pending with the same ids: nothing', () =>
      given(subscriptionDecider, states.pending).when(recordPending).then([]));
    it('pending with other ids: pending with those', () =>
      given(subscriptionDecider, states.pending)
        .when(cmd('RecordPending', other))
        .then([{ type: 'SubscriptionPending', data: { ...other, at } }]));
    for (const s of ['inactive', 'active', 'failed', 'unsubscribing'] as const)
      it(`${s}: conflict`, () =>
        given(subscriptionDecider, states[s])
          .when(recordPending)
          .thenThrows('conflict', new RegExp(`is ${s}$`)));
  });

  describe('RecordSubscribed', () => {
    it('requested: active', () =>
      given(subscriptionDecider, states.requested).when(recordSubscribed).then([activated]));
    it('pending: active (the marketplace confirmed)', () =>
      given(subscriptionDecider, states.pending).when(recordSubscribed).then([activated]));
    it('active with the same ids: nothing', () =>
      given(subscriptionDecider, states.active).when(recordSubscribed).then([]));
    for (const s of ['inactive', 'failed', 'unsubscribing'] as const)
      it(`${s}: conflict`, () =>
        given(subscriptionDecider, states[s])
          .when(recordSubscribed)
          .thenThrows('conflict', /^RecordSubscribed: the BUDGET_USAGE subscription of account/));
  });

  describe('RecordFailed', () => {
    it('requested: failed with the error', () =>
      given(subscriptionDecider, states.requested).when(recordFailed).then([failed]));
    it('pending: failed (confirmation failed)', () =>
      given(subscriptionDecider, states.pending).when(recordFailed).then([failed]));
    it('failed: nothing', () => given(subscriptionDecider, states.failed).when(recordFailed).then([]));
    for (const s of ['inactive', 'active', 'unsubscribing'] as const)
      it(`${s}: conflict`, () => given(subscriptionDecider, states[s]).when(recordFailed).thenThrows('conflict'));
  });

  describe('RecordLost', () => {
    it('active: lost, which asks for it again', () =>
      given(subscriptionDecider, states.active).when(recordLost).then([lost]));
    it('lost (requested again): nothing', () => given(subscriptionDecider, states.lost).when(recordLost).then([]));
    for (const s of ['inactive', 'pending', 'failed', 'unsubscribing'] as const)
      it(`${s}: conflict`, () => given(subscriptionDecider, states[s]).when(recordLost).thenThrows('conflict'));
    it('lost, then subscribed again: active with the new ids', () =>
      given(subscriptionDecider, states.lost)
        .when(cmd('RecordSubscribed', other))
        .then([{ type: 'SubscriptionActivated', data: { ...other, at } }]));
  });

  describe('RequestUnsubscribe', () => {
    for (const s of ['requested', 'pending', 'active', 'failed'] as const)
      it(`${s}: unsubscribe requested`, () =>
        given(subscriptionDecider, states[s]).when(unsubscribe).then([unsubscribing]));
    for (const s of ['inactive', 'unsubscribing'] as const)
      it(`${s}: nothing`, () => given(subscriptionDecider, states[s]).when(unsubscribe).then([]));
  });

  describe('RecordUnsubscribed', () => {
    it('unsubscribing: inactive', () =>
      given(subscriptionDecider, states.unsubscribing).when(recordUnsubscribed).then([unsubscribed]));
    it('inactive: nothing', () => given(subscriptionDecider, states.inactive).when(recordUnsubscribed).then([]));
    for (const s of ['requested', 'pending', 'active', 'failed'] as const)
      it(`${s}: conflict`, () => given(subscriptionDecider, states[s]).when(recordUnsubscribed).thenThrows('conflict'));
  });

  it('the state keeps the ids and the error, and letting go clears them', () => {
    const fold = (events: SubscriptionEvent[]) =>
      events.reduce(subscriptionDecider.evolve, subscriptionDecider.initialState());
    expect(fold(states.pending)).to.deep.include({ status: 'pending', ...ids, error: null });
    expect(fold(states.failed)).to.deep.include({ status: 'failed', error });
    expect(fold(states['inactive again'])).to.deep.include({ status: 'inactive', subscription_ids: [], requests: 1 });
    // a lost subscription's ids are gone; the next request is a new one (new ads tokens)
    expect(fold(states.lost)).to.deep.include({
      status: 'requested',
      subscription_ids: [],
      destination_id: null,
      requests: 2,
      error: lostError,
    });
  });
});

describe('which subscriptions are wanted', () => {
  const now = new Date('2026-11-25T10:10:00Z');
  const grace = 10 * 60_000;
  const need = (code: string, extra: object = {}) => ({
    type: streamType(code)!,
    runnable: true,
    live: false,
    released_at: null,
    ...extra,
  });
  it('an always type while the account can run it', () => {
    expect(subscriptionWanted(need('ORDER_CHANGE'), now, grace)).to.equal(true);
    expect(subscriptionWanted(need('ORDER_CHANGE', { runnable: false }), now, grace)).to.equal(false);
  });
  it('a while-needed type while an automation is live, and for the grace period after the last one stops', () => {
    expect(subscriptionWanted(need('ANY_OFFER_CHANGED'), now, grace)).to.equal(false);
    expect(subscriptionWanted(need('ANY_OFFER_CHANGED', { live: true }), now, grace)).to.equal(true);
    const stopped = (ms: number) => need('ANY_OFFER_CHANGED', { released_at: new Date(now.getTime() - ms) });
    expect(subscriptionWanted(stopped(grace - 1), now, grace)).to.equal(true);
    expect(subscriptionWanted(stopped(grace), now, grace)).to.equal(false);
  });
  it('local report completions never', () =>
    expect(subscriptionWanted(need('ADS_REPORT_COMPLETED', { live: true }), now, grace)).to.equal(false));
});
