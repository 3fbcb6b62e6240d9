import { expect } from 'chai';
import { hourlyLists, hourMetrics } from '../../src/runtime/context/hourly.js';
import { decimalString, majorUnits } from '../../src/runtime/context/money.js';

// The pure pieces of the contexts: minor to major units by the currency's own exponent, the ads
// API's decimal strings, and the hourly rollup of Marketing Stream rows.
describe('automation context values', () => {
  it('major units: minor units over the exponent of the currency, exactly', () => {
    expect(majorUnits(1527, 'USD')).to.equal(15.27);
    expect(majorUnits('1527', 'JPY')).to.equal(1527);
    expect(majorUnits(1527, 'BHD')).to.equal(1.527);
    expect(majorUnits(5, 'EUR')).to.equal(0.05);
    expect(majorUnits(-5, 'EUR')).to.equal(-0.05);
    // 0.1 + 0.2 style drift never shows: 1.10 is 1.1, not 1.1000000000000001
    expect(majorUnits(110, 'GBP')).to.equal(1.1);
    expect([majorUnits(null, 'USD'), majorUnits(undefined, 'USD')]).to.deep.equal([null, null]);
  });

  it('decimal strings as the ads API states budgets and bids', () => {
    expect([decimalString(50), decimalString(0.75), decimalString('1'), decimalString(null)]).to.deep.equal([
      '50.0',
      '0.75',
      null,
      null,
    ]);
  });

  it('hourly rollup: one fact once (its last restatement), per hour, money rounded to the minor unit', () => {
    const traffic = (id: string, hour: string, cost: number, clicks = 1) => ({
      stream_type: 'SP_TRAFFIC',
      payload: { idempotency_id: id, time_window_start: hour, impressions: 10, clicks, cost },
    });
    const rows = [
      traffic('a', '2026-05-20T13:00:00Z', 0.1),
      traffic('b', '2026-05-20T13:00:00Z', 0.2),
      traffic('a', '2026-05-20T13:00:00Z', 0.15, 2),
      traffic('c', '2026-05-20T12:00:00Z', 1.23),
      {
        stream_type: 'SP_CONVERSION',
        payload: {
          idempotency_id: 'd',
          time_window_start: '2026-05-20T13:00:00Z',
          attributed_conversions_7d: 1,
          attributed_sales_7d: 19.99,
          attributed_units_ordered_7d: 2,
        },
      },
    ];
    const lists = hourlyLists(rows, 'USD');
    expect(lists.hourlyTraffic).to.deep.equal([
      { hour: '2026-05-20T12:00:00.000Z', impressions: 10, clicks: 1, cost: 1.23 },
      { hour: '2026-05-20T13:00:00.000Z', impressions: 20, clicks: 3, cost: 0.35 },
    ]);
    expect(lists.hourlyConversions).to.deep.equal([
      { hour: '2026-05-20T13:00:00.000Z', conversions: 1, sales: 19.99, unitsOrdered: 2 },
    ]);
    const metrics = hourMetrics(rows, 'SP_TRAFFIC', traffic('e', '2026-05-20T13:00:00Z', 1).payload, 'USD');
    expect(metrics).to.deep.equal({
      feed: 'sp-traffic',
      hour: '2026-05-20T13:00:00.000Z',
      rows: 3,
      impressions: 30,
      clicks: 4,
      cost: 1.35,
      conversions: null,
      sales: null,
      unitsOrdered: null,
    });
  });
});
