import { expect } from 'chai';
import {
  callListeners,
  HintedTypes,
  hintListener,
  notifyPayload,
  readNotifyPayload,
} from '../../src/eventstore/hints.js';

describe('append hints by type', () => {
  it('calls the listeners of a hinted type and those of every type; a hint without types calls all', () => {
    const called: string[] = [];
    const listeners = [
      hintListener(() => called.push('runs'), ['AutomationRunRecorded']),
      hintListener(() => called.push('events'), ['MarketplaceEventReceived', 'LiveAutomationChanged']),
      hintListener(() => called.push('all')),
    ];
    callListeners(listeners, new Set(['MarketplaceEventReceived']));
    expect(called).to.deep.equal(['events', 'all']);
    called.length = 0;
    callListeners(listeners, null);
    expect(called).to.deep.equal(['runs', 'events', 'all']);
    called.length = 0;
    callListeners(listeners, new Set());
    expect(called).to.deep.equal(['all']);
  });

  it('gathers the types hinted between takes; once a hint did not say, the next take says none', () => {
    const hinted = new HintedTypes();
    hinted.add(['A', 'B']);
    hinted.add(['B', 'C']);
    expect([...hinted.take()!]).to.deep.equal(['A', 'B', 'C']);
    expect([...hinted.take()!]).to.deep.equal([]);
    hinted.add(['A']);
    hinted.add(null);
    hinted.add(['B']);
    expect(hinted.take()).to.equal(null);
    expect(hinted.take()).to.deep.equal(new Set());
  });

  it('a NOTIFY payload carries the store and the types; too many types, or an older bare store id, say none', () => {
    expect(readNotifyPayload(notifyPayload('store-1', new Set(['A', 'B'])))).to.deep.equal({
      from: 'store-1',
      types: new Set(['A', 'B']),
    });
    const many = new Set(Array.from({ length: 2_000 }, (_, i) => `SomeEventType${i}`));
    const payload = notifyPayload('store-1', many);
    expect(payload.length, 'within NOTIFY’s 8,000 bytes').to.be.below(8_000);
    expect(readNotifyPayload(payload)).to.deep.equal({ from: 'store-1', types: null });
    expect(readNotifyPayload('0b7e6f0e-3a55-4b8e-9f51-6f3e7c1d2a10')).to.deep.equal({
      from: '0b7e6f0e-3a55-4b8e-9f51-6f3e7c1d2a10',
      types: null,
    });
    expect(readNotifyPayload('{"from":"s","types":[1]}')).to.deep.equal({ from: 's', types: null });
  });
});
