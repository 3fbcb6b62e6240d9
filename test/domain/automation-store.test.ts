import { storeDecider, type ApplyStoreEffects, type StoreUsage } from '../../src/domain/automation-store/decide.js';
import type { StoreEvent } from '../../src/domain/automation-store/events.js';
import { STORE_LIMITS } from '../../src/domain/automation-store/limits.js';
import { given } from '../support/gwt.js';

// context.store (spec 2.14): a live run's buffered writes, applied once, all together, within the
// limits of docs/decisions/043-automation-store.md.

const automation_id = '0b7d2c10-1111-4222-8333-944444444444';
const run_id = '7a1e6a52-3c1d-5b0e-9f00-1d2c3b4a5f60';
const at = '2026-11-25T10:00:00.000Z';
const expires_at = '2026-12-02T10:00:00.000Z';
const empty: StoreUsage = { keys: 0, bytes: 0, held: new Map() };

const apply = (effects: ApplyStoreEffects['effects'], usage: StoreUsage = empty): ApplyStoreEffects => ({
  type: 'ApplyStoreEffects',
  automation_id,
  run_id,
  at,
  effects,
  usage,
});
const applied = (changes: { key: string; value_json: string | null }[]): StoreEvent => ({
  type: 'StoreChangesApplied',
  data: { automation_id, run_id, at, expires_at, changes },
});

describe('automation store decider (spec 2.14)', () => {
  it("records a run's writes in one event that expires 7 days after the write, values as the run's JSON text", () =>
    given(storeDecider, [])
      .when(
        apply([
          { op: 'set', key: 'lastPrice', value: 15.27 },
          { op: 'set', key: 'seen', value: { asin: 'B0TEST', at: [1, 2] } },
          { op: 'delete', key: 'old' },
        ]),
      )
      .then([
        applied([
          { key: 'lastPrice', value_json: '15.27' },
          { key: 'seen', value_json: '{"asin":"B0TEST","at":[1,2]}' },
          { key: 'old', value_json: null },
        ]),
      ]));

  it("keeps a key's last write only, in the order of the last writes", () =>
    given(storeDecider, [])
      .when(
        apply([
          { op: 'set', key: 'a', value: 1 },
          { op: 'set', key: 'b', value: 2 },
          { op: 'delete', key: 'a' },
          { op: 'set', key: 'b', value: null },
        ]),
      )
      .then([
        applied([
          { key: 'a', value_json: null },
          { key: 'b', value_json: 'null' },
        ]),
      ]));

  it('a run applied before applies nothing again, whatever it now says', () =>
    given(storeDecider, [applied([{ key: 'n', value_json: '1' }])])
      .when(apply([{ op: 'set', key: 'n', value: 2 }]))
      .then([]));

  it('a run that wrote nothing records nothing', () => given(storeDecider, []).when(apply([])).then([]));

  describe('limits', () => {
    const jsonOf = (bytes: number) => 'x'.repeat(bytes - 2); // a string's JSON adds its two quotes

    it(`accepts a value of exactly ${STORE_LIMITS.valueBytes} bytes of JSON and refuses one byte more, naming the key`, () => {
      given(storeDecider, [])
        .when(apply([{ op: 'set', key: 'k', value: jsonOf(STORE_LIMITS.valueBytes) }]))
        .then([applied([{ key: 'k', value_json: JSON.stringify(jsonOf(STORE_LIMITS.valueBytes)) }])]);
      given(storeDecider, [])
        .when(apply([{ op: 'set', key: 'k', value: jsonOf(STORE_LIMITS.valueBytes + 1) }]))
        .thenThrows(
          'invalid',
          /^store: the value of key 'k' is 16,385 bytes of JSON, over the limit of 16,384 bytes per value$/,
        );
    });

    it('counts UTF-8 bytes, not characters', () =>
      given(storeDecider, [])
        .when(apply([{ op: 'set', key: 'k', value: 'é'.repeat(STORE_LIMITS.valueBytes / 2) }]))
        .thenThrows('invalid', /16,386 bytes of JSON/));

    it('refuses an empty key, one over 256 bytes, and one PostgreSQL cannot store', () => {
      given(storeDecider, [])
        .when(apply([{ op: 'set', key: '', value: 1 }]))
        .thenThrows('invalid', /a key must be a non-empty string/);
      given(storeDecider, [])
        .when(apply([{ op: 'delete', key: 'k'.repeat(STORE_LIMITS.keyBytes + 1) }]))
        .thenThrows('invalid', /is 257 bytes, over the limit of 256 bytes per key/);
      given(storeDecider, [])
        .when(apply([{ op: 'set', key: 'a\u0000b', value: 1 }]))
        .thenThrows('invalid', /NUL character or a lone UTF-16 surrogate/);
      given(storeDecider, [])
        .when(apply([{ op: 'set', key: '\ud800', value: 1 }]))
        .thenThrows('invalid', /NUL character or a lone UTF-16 surrogate/);
    });

    it('refuses a value JSON cannot carry', () => {
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      given(storeDecider, [])
        .when(apply([{ op: 'set', key: 'big', value: 10n }]))
        .thenThrows('invalid', /value of key 'big' is not JSON-serializable \(Do not know how to serialize a BigInt\)/);
      given(storeDecider, [])
        .when(apply([{ op: 'set', key: 'u', value: undefined }]))
        .thenThrows('invalid', /value of key 'u' is not JSON-serializable \(undefined\)/);
      given(storeDecider, [])
        .when(apply([{ op: 'set', key: 'c', value: cyclic }]))
        .thenThrows('invalid', /value of key 'c' is not JSON-serializable \(Converting circular structure/);
    });

    it(`refuses a new key beyond ${STORE_LIMITS.keys}, but overwriting a held key or deleting one to make room is fine`, () => {
      const full: StoreUsage = { keys: STORE_LIMITS.keys, bytes: 10_000, held: new Map([['held', 10]]) };
      given(storeDecider, [])
        .when(apply([{ op: 'set', key: 'new', value: 1 }], full))
        .thenThrows('invalid', /would leave 1,001 keys, over the limit of 1,000 keys per automation/);
      given(storeDecider, [])
        .when(apply([{ op: 'set', key: 'held', value: 2 }], full))
        .then([applied([{ key: 'held', value_json: '2' }])]);
      given(storeDecider, [])
        .when(
          apply(
            [
              { op: 'delete', key: 'held' },
              { op: 'set', key: 'new', value: 1 },
            ],
            full,
          ),
        )
        .then([
          applied([
            { key: 'held', value_json: null },
            { key: 'new', value_json: '1' },
          ]),
        ]);
    });

    it(`refuses writes that take the store over ${STORE_LIMITS.totalBytes} bytes, counting keys and JSON text`, () => {
      const nearlyFull: StoreUsage = { keys: 100, bytes: STORE_LIMITS.totalBytes - 10, held: new Map() };
      // 'abc' (3 bytes) + '1234567' (7 bytes) fills it exactly; one more byte of JSON does not fit
      given(storeDecider, [])
        .when(apply([{ op: 'set', key: 'abc', value: 1234567 }], nearlyFull))
        .then([applied([{ key: 'abc', value_json: '1234567' }])]);
      given(storeDecider, [])
        .when(apply([{ op: 'set', key: 'abc', value: 12345678 }], nearlyFull))
        .thenThrows(
          'invalid',
          /would leave 1,048,577 bytes of keys and values, over the limit of 1,048,576 bytes per automation/,
        );
    });

    it('a refused run records none of its writes', () =>
      given(storeDecider, [])
        .when(
          apply([
            { op: 'set', key: 'fine', value: 1 },
            { op: 'set', key: 'huge', value: 'x'.repeat(STORE_LIMITS.valueBytes) },
          ]),
        )
        .thenThrows('invalid', /key 'huge'/));
  });
});
