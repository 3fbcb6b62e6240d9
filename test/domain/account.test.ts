import { expect } from 'chai';
import { given } from '../support/gwt.js';
import { accountDecider, type ObservedProfile } from '../../src/domain/account/decide.js';
import type { AccountEvent, Marketplace } from '../../src/domain/account/events.js';
import { stableId } from '../../src/domain/shared/ids.js';

const account_id = '7e57a000-0000-4000-8000-000000000001';
const user_id = '7e57a000-0000-4000-8000-0000000000aa';
const registered: AccountEvent = {
  type: 'AccountRegistered',
  data: { account_id, user_id, name: 'Northwind', entity_type: 'seller' },
};
const sellingConnected: AccountEvent = {
  type: 'SellingConnected',
  data: {
    account_id,
    connection_id: stableId(`selling:${account_id}`, 'A1SELLER'),
    provider_id: 'A1SELLER',
    credentials: 'seller',
  },
};
const adsConnected: AccountEvent = {
  type: 'AdvertisingConnected',
  data: {
    account_id,
    connection_id: stableId(`ads:${account_id}`, 'ENTITY1'),
    provider_id: 'ENTITY1',
    credentials: 'seller',
  },
};
const us: Marketplace = {
  marketplace_id: 'ATVPDKIKX0DER',
  country_code: 'US',
  name: 'Amazon.com',
  currency: 'USD',
  domain_name: 'www.amazon.com',
  participating: true,
};
const jp: Marketplace = {
  marketplace_id: 'A1VC38T7YXB528',
  country_code: 'JP',
  name: 'Amazon.co.jp',
  currency: 'JPY',
  domain_name: 'www.amazon.co.jp',
  participating: true,
};
const jpProfile: ObservedProfile = {
  provider_profile_id: '3001',
  marketplace_id: 'A1VC38T7YXB528',
  country_code: 'JP',
  currency: 'JPY',
  timezone: 'Asia/Tokyo',
  account_name: 'Northwind JP',
  account_id: 'A1SELLER',
  valid_payment_method: true,
};

describe('account decider', () => {
  it('registers an account for a user', () =>
    given(accountDecider, [])
      .when({ type: 'RegisterAccount', account_id, user_id, name: 'Northwind', entity_type: 'seller' })
      .then([registered]));
  it('refuses to move an account to another user', () =>
    given(accountDecider, [registered])
      .when({
        type: 'RegisterAccount',
        account_id,
        user_id: '7e57a000-0000-4000-8000-0000000000bb',
        name: 'Northwind',
        entity_type: 'seller',
      })
      .thenThrows('conflict'));
  it('connects selling with a stable connection id', () =>
    given(accountDecider, [registered])
      .when({ type: 'ConnectSelling', account_id, provider_id: 'A1SELLER', credentials: 'seller' })
      .then([sellingConnected]));
  it('reconnecting the same selling partner is a no-op', () =>
    given(accountDecider, [registered, sellingConnected])
      .when({ type: 'ConnectSelling', account_id, provider_id: 'A1SELLER', credentials: 'seller' })
      .then([]));
  it('records the connection again when it is made with another credential set, and one recorded before sets were named', () => {
    given(accountDecider, [registered, sellingConnected])
      .when({ type: 'ConnectSelling', account_id, provider_id: 'A1SELLER', credentials: 'vendor' })
      .then([{ type: 'SellingConnected', data: { ...sellingConnected.data, credentials: 'vendor' } } as AccountEvent]);
    const unnamed = {
      type: 'SellingConnected',
      data: { account_id, connection_id: stableId(`selling:${account_id}`, 'A1SELLER'), provider_id: 'A1SELLER' },
    } as AccountEvent;
    given(accountDecider, [registered, unnamed])
      .when({ type: 'ConnectSelling', account_id, provider_id: 'A1SELLER', credentials: 'seller' })
      .then([sellingConnected]);
  });
  it('refuses a connection on an unregistered account', () =>
    given(accountDecider, [])
      .when({ type: 'ConnectSelling', account_id, provider_id: 'A1SELLER', credentials: 'seller' })
      .thenThrows('account_not_found'));
  it('records participations sorted by marketplace id', () =>
    given(accountDecider, [registered, sellingConnected])
      .when({ type: 'ObserveSellingParticipations', account_id, marketplaces: [us, jp] })
      .then([{ type: 'SellingParticipationsObserved', data: { account_id, marketplaces: [jp, us] } }]));
  it('the same participations observed again record nothing', () =>
    given(accountDecider, [
      registered,
      sellingConnected,
      { type: 'SellingParticipationsObserved', data: { account_id, marketplaces: [jp, us] } },
    ])
      .when({ type: 'ObserveSellingParticipations', account_id, marketplaces: [us, jp] })
      .then([]));
  it('refuses participations without a selling connection', () =>
    given(accountDecider, [registered])
      .when({ type: 'ObserveSellingParticipations', account_id, marketplaces: [us] })
      .thenThrows('not_connected'));
  it('gives each observed profile a stable local id', () =>
    given(accountDecider, [registered, adsConnected])
      .when({ type: 'ObserveAdvertisingProfiles', account_id, profiles: [jpProfile] })
      .then([
        {
          type: 'AdvertisingProfilesObserved',
          data: { account_id, profiles: [{ id: stableId(`profile:${account_id}`, '3001'), ...jpProfile }] },
        },
      ]));
  it('unchanged profiles record nothing; a changed one records the new list', () => {
    const observed: AccountEvent = {
      type: 'AdvertisingProfilesObserved',
      data: { account_id, profiles: [{ id: stableId(`profile:${account_id}`, '3001'), ...jpProfile }] },
    };
    given(accountDecider, [registered, adsConnected, observed])
      .when({ type: 'ObserveAdvertisingProfiles', account_id, profiles: [jpProfile] })
      .then([]);
    given(accountDecider, [registered, adsConnected, observed])
      .when({
        type: 'ObserveAdvertisingProfiles',
        account_id,
        profiles: [{ ...jpProfile, valid_payment_method: false }],
      })
      .then([
        {
          type: 'AdvertisingProfilesObserved',
          data: {
            account_id,
            profiles: [{ id: stableId(`profile:${account_id}`, '3001'), ...jpProfile, valid_payment_method: false }],
          },
        },
      ]);
  });
  it('refuses profiles without an advertising connection', () =>
    given(accountDecider, [registered])
      .when({ type: 'ObserveAdvertisingProfiles', account_id, profiles: [jpProfile] })
      .thenThrows('owner_not_connected'));

  describe('a connection going inactive, and coming back', () => {
    const at = '2026-03-04T10:00:00.000Z';
    type Cause = 'operator' | 'authorization_refused' | 'disconnected';
    const deactivate = (connection: 'selling' | 'ads', cause: Cause = 'operator') =>
      ({ type: 'DeactivateConnection', account_id, connection, cause, detail: 'why', at }) as const;
    const deactivated = (connection: 'selling' | 'ads', cause: Cause = 'operator') =>
      ({
        type: 'ConnectionDeactivated',
        data: {
          account_id,
          connection,
          connection_id: (connection === 'selling' ? sellingConnected : adsConnected).data.connection_id,
          cause,
          detail: 'why',
          at,
        },
      }) as AccountEvent;

    it('an operator deactivates either connection; the event names it and the day the clock starts', () => {
      given(accountDecider, [registered, sellingConnected, adsConnected])
        .when(deactivate('selling'))
        .then([deactivated('selling')]);
      given(accountDecider, [registered, sellingConnected, adsConnected])
        .when(deactivate('ads', 'authorization_refused'))
        .then([deactivated('ads', 'authorization_refused')]);
    });
    it('a seller disconnects a connection on the connections page; connecting it again revives it', () => {
      given(accountDecider, [registered, sellingConnected])
        .when(deactivate('selling', 'disconnected'))
        .then([deactivated('selling', 'disconnected')]);
      given(accountDecider, [registered, sellingConnected, deactivated('selling', 'disconnected')])
        .when({
          type: 'ConnectSelling',
          account_id,
          provider_id: 'A1SELLER',
          credentials: 'seller',
          reconnect: true,
        })
        .then([sellingConnected]);
    });
    it('deactivating an inactive connection again records nothing, so its clock keeps its first day', () =>
      given(accountDecider, [registered, sellingConnected, deactivated('selling', 'authorization_refused')])
        .when({ ...deactivate('selling'), at: '2026-03-20T00:00:00.000Z' })
        .then([]));
    it('refuses to deactivate a connection never made, or on an unregistered account', () => {
      given(accountDecider, [registered, adsConnected]).when(deactivate('selling')).thenThrows('not_connected');
      given(accountDecider, [registered, sellingConnected]).when(deactivate('ads')).thenThrows('owner_not_connected');
      given(accountDecider, []).when(deactivate('selling')).thenThrows('account_not_found');
    });
    it('refuses a deactivation time that is no date-time', () =>
      given(accountDecider, [registered, sellingConnected])
        .when({ ...deactivate('selling'), at: 'yesterday' })
        .thenThrows('invalid', /at: 'yesterday'/));
    it('a routine connection sync never makes an inactive connection active again, even with another credential set', () => {
      given(accountDecider, [registered, sellingConnected, deactivated('selling')])
        .when({ type: 'ConnectSelling', account_id, provider_id: 'A1SELLER', credentials: 'seller' })
        .then([]);
      given(accountDecider, [registered, sellingConnected, adsConnected, deactivated('ads')])
        .when({ type: 'ConnectAdvertising', account_id, provider_id: 'ENTITY1', credentials: 'vendor' })
        .then([]);
    });
    it("the operator's reconnection records the connection again, which makes it active", () => {
      given(accountDecider, [registered, sellingConnected, deactivated('selling', 'authorization_refused')])
        .when({ type: 'ConnectSelling', account_id, provider_id: 'A1SELLER', credentials: 'seller', reconnect: true })
        .then([sellingConnected]);
      const state = [registered, sellingConnected, deactivated('selling'), sellingConnected].reduce(
        accountDecider.evolve,
        accountDecider.initialState(),
      );
      expect(state.selling?.inactive).to.equal(null);
      given(accountDecider, [registered, sellingConnected, deactivated('selling'), sellingConnected])
        .when(deactivate('selling'))
        .then([deactivated('selling')]);
    });
    it('a reconnection of an active connection records nothing', () =>
      given(accountDecider, [registered, sellingConnected])
        .when({ type: 'ConnectSelling', account_id, provider_id: 'A1SELLER', credentials: 'seller', reconnect: true })
        .then([]));
    it('the state keeps since when and why, for the connection concerned only', () => {
      const state = [registered, sellingConnected, adsConnected, deactivated('ads', 'authorization_refused')].reduce(
        accountDecider.evolve,
        accountDecider.initialState(),
      );
      expect(state.ads?.inactive).to.deep.equal({ at, cause: 'authorization_refused', detail: 'why' });
      expect(state.selling?.inactive).to.equal(null);
    });
  });
});
