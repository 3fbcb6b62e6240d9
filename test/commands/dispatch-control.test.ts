import { expect } from 'chai';
import { executeDispatchControlCommand, withheldReason } from '../../src/commands/dispatch-control/execute.js';
import { dispatchControlDecider } from '../../src/domain/dispatch-control/decide.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import { newId } from '../../src/domain/shared/ids.js';
import { given } from '../support/gwt.js';
import { usePgEventStore } from '../support/pg-event-store.js';
import { adsEntityId } from '../../src/domain/observation/ids.js';

// A listing's block flag and a campaign's Automation switch (spec 3.3, 3.5): the decider records
// changes only; what withholds a request is read from the flags' own streams, so a flag set a
// moment ago already holds (no projection lag under the dispatcher's lock).

const at = '2026-11-20T10:00:00.000Z';

describe('dispatch controls: block flag and Automation switch', () => {
  describe('decider', () => {
    const account_id = newId();
    const block = (blocked: boolean) => ({
      type: 'SetListingBlock' as const,
      account_id,
      listing_id: 'l-1',
      blocked,
      at,
    });
    const blockedEvent = {
      type: 'ListingBlockSet' as const,
      data: { account_id, listing_id: 'l-1', blocked: true, set_at: at },
    };
    it('a listing starts allowed: allowing it records nothing, blocking records the flag', () => {
      given(dispatchControlDecider, []).when(block(false)).then([]);
      given(dispatchControlDecider, []).when(block(true)).then([blockedEvent]);
    });
    it('setting the value it already has records nothing', () =>
      given(dispatchControlDecider, [blockedEvent]).when(block(true)).then([]));
    it('a campaign starts with its switch on: switching off records it', () =>
      given(dispatchControlDecider, [])
        .when({ type: 'SetCampaignAutomation', account_id, campaign_id: 'c-1', enabled: false, at })
        .then([
          { type: 'CampaignAutomationSet', data: { account_id, campaign_id: 'c-1', enabled: false, set_at: at } },
        ]));
  });

  describe('what withholds a request, read from the streams', () => {
    const es = usePgEventStore();
    const account = newId();
    const ctx = () => ({ store: es.store, metadata: { actor: { kind: 'user' as const, id: 'u-1' } } });
    const listing = newId();
    const campaignProvider = { profileId: '3001', campaignId: '111' };
    const campaign = adsEntityId('campaign', account, '3001', '111');

    it('a blocked listing withholds its own patches and the ads requests made for it; unblocked, nothing does', async () => {
      const patch = { account_id: account, target: { type: 'Listing', id: listing }, provider: {} };
      const adForIt = { account_id: account, target: { type: 'Ad', id: newId() }, provider: { listingId: listing } };
      expect(await withheldReason(es.store, patch)).to.equal(null);
      await executeDispatchControlCommand(ctx(), {
        type: 'SetListingBlock',
        account_id: account,
        listing_id: listing,
        blocked: true,
        at,
      });
      expect(await withheldReason(es.store, patch)).to.deep.include({ reason: 'listing_blocked' });
      expect(await withheldReason(es.store, adForIt)).to.deep.include({ reason: 'listing_blocked' });
      await executeDispatchControlCommand(ctx(), {
        type: 'SetListingBlock',
        account_id: account,
        listing_id: listing,
        blocked: false,
        at,
      });
      expect(await withheldReason(es.store, adForIt)).to.equal(null);
    });

    it("a campaign's switch off withholds requests on it and under it (by its provider ids); on again, none", async () => {
      const onCampaign = {
        account_id: account,
        target: { type: 'Campaign', id: campaign },
        provider: campaignProvider,
      };
      const underIt = {
        account_id: account,
        target: { type: 'AdGroup', id: newId() },
        provider: { ...campaignProvider, adGroupId: '222' },
      };
      const elsewhere = {
        account_id: account,
        target: { type: 'AdGroup', id: newId() },
        provider: { profileId: '3001', campaignId: '999', adGroupId: '223' },
      };
      await executeDispatchControlCommand(ctx(), {
        type: 'SetCampaignAutomation',
        account_id: account,
        campaign_id: campaign,
        enabled: false,
        at,
      });
      expect(await withheldReason(es.store, onCampaign)).to.deep.equal({
        reason: 'automation_switch_off',
        message: `campaign ${campaign} has its Automation switch off`,
      });
      expect(await withheldReason(es.store, underIt)).to.deep.include({ reason: 'automation_switch_off' });
      expect(await withheldReason(es.store, elsewhere)).to.equal(null);
      await executeDispatchControlCommand(ctx(), {
        type: 'SetCampaignAutomation',
        account_id: account,
        campaign_id: campaign,
        enabled: true,
        at,
      });
      expect(await withheldReason(es.store, underIt)).to.equal(null);
    });

    it('a flag other writers keep changing past the retries is a conflict, nothing of ours recorded', async () => {
      const flag = newId();
      // every time we are about to append, another writer (on the real store too) blocks and allows it again first
      const racing = new Proxy(es.store, {
        get(target, prop) {
          if (prop === 'appendToStream') {
            return async (...args: Parameters<typeof target.appendToStream>) => {
              for (const blocked of [true, false])
                await executeDispatchControlCommand(ctx(), {
                  type: 'SetListingBlock',
                  account_id: account,
                  listing_id: flag,
                  blocked,
                  at,
                });
              return target.appendToStream(...args);
            };
          }
          const value = Reflect.get(target, prop) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      let error: unknown;
      try {
        await executeDispatchControlCommand(
          { ...ctx(), store: racing, maxAttempts: 2 },
          { type: 'SetListingBlock', account_id: account, listing_id: flag, blocked: true, at },
        );
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(DomainError);
      expect(error).to.deep.include({ code: 'conflict' });
      expect((error as DomainError).detail).to.equal(`Listing ${flag} changed while saving; retry`);
      const recorded = (await es.store.readStream(`dispatch-control-Listing:${flag}`)).map(
        (e) => (e.data as { blocked: boolean }).blocked,
      );
      expect(recorded, 'only the other writer recorded, once per attempt of ours').to.deep.equal([
        true,
        false,
        true,
        false,
      ]);
    });
  });
});
