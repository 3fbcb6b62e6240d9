import type { StoreChange, StoreEvent } from '../../src/domain/automation-store/events.js';
import { automationStoreProjection } from '../../src/projections/automation-store/projection.js';
import { assertStreamEventsApplyTwice, inStream, projectionSpec } from '../support/projections.js';

// The automation store read model, event by event (spec 2.14): the last write of a key wins, a
// delete removes it, every value keeps its write's expiry, and each run's write-set is listed for
// retention.

const a = '0b7d2c10-1111-4222-8333-944444444444';
const b = '1c8e3d21-2222-4333-9444-a55555555555';
const runs = [
  '7a1e6a52-3c1d-5b0e-9f00-1d2c3b4a5f61',
  '7a1e6a52-3c1d-5b0e-9f00-1d2c3b4a5f62',
  '7a1e6a52-3c1d-5b0e-9f00-1d2c3b4a5f63',
];
const day = (n: number) => `2026-11-${String(20 + n).padStart(2, '0')}T10:00:00.000Z`;

const applied = (automation_id: string, run: number, at: number, changes: StoreChange[]) =>
  inStream(`automation_store-${runs[run]}`, [
    {
      type: 'StoreChangesApplied',
      data: { automation_id, run_id: runs[run]!, at: day(at), expires_at: day(at + 7), changes },
    } satisfies StoreEvent,
  ]);

const given = projectionSpec(automationStoreProjection);
const history = [
  ...applied(a, 0, 0, [
    { key: 'price', value_json: '15.27' },
    { key: 'seen', value_json: '{"b":1,"a":2}' },
  ]),
  ...applied(b, 1, 1, [{ key: 'price', value_json: '9' }]),
];

describe('automation store projection', () => {
  it('a write-set stores its values as the run wrote them (JSON text, key order kept), with their bytes and expiry', () =>
    given([])
      .when(history)
      .then('automation_store_values', [
        {
          automation_id: a,
          key: 'price',
          value_json: '15.27',
          bytes: 10,
          run_id: runs[0],
          written_at: day(0),
          expires_at: day(7),
        },
        {
          automation_id: a,
          key: 'seen',
          value_json: '{"b":1,"a":2}',
          bytes: 17,
          run_id: runs[0],
          written_at: day(0),
          expires_at: day(7),
        },
        {
          automation_id: b,
          key: 'price',
          value_json: '9',
          bytes: 6,
          run_id: runs[1],
          written_at: day(1),
          expires_at: day(8),
        },
      ]));

  it("a later write of a key replaces its value and expiry; a delete removes it; another automation's key is untouched", async () => {
    const when = given(history).when(
      applied(a, 2, 3, [
        { key: 'price', value_json: '14.99' },
        { key: 'seen', value_json: null },
        { key: 'never-set', value_json: null },
      ]),
    );
    await when.then('automation_store_values', [
      { automation_id: a, key: 'price', value_json: '14.99', written_at: day(3), expires_at: day(10) },
      { automation_id: b, key: 'price', value_json: '9', written_at: day(1), expires_at: day(8) },
    ]);
    await when.then('automation_store_writes', [
      { run_id: runs[0], automation_id: a, expires_at: day(7) },
      { run_id: runs[1], automation_id: b, expires_at: day(8) },
      { run_id: runs[2], automation_id: a, expires_at: day(10) },
    ]);
  });

  it('applying the same events twice changes nothing', () =>
    assertStreamEventsApplyTwice(automationStoreProjection, [
      ...history,
      ...applied(a, 2, 3, [{ key: 'seen', value_json: null }]),
    ]));
});
