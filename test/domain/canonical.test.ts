import { expect } from 'chai';
import { canonicalJson } from '../../src/domain/shared/canonical.js';
import { EVENT_CONTRACTS } from '../../src/runtime/contracts/events/index.js';

// Stored page hashes and creation fingerprints are of canonicalJson's text: it must stay, byte for
// byte, what its definition gives (JSON.stringify rebuilding each object from its sorted entries),
// or every page would look restated on the next sync.
const byDefinition = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );

/** A random JSON-like value: what pages and payloads hold, and the odd things JavaScript gives. */
function randomValue(rng: () => number, depth = 0): unknown {
  const pick = Math.floor(rng() * (depth > 3 ? 6 : 10));
  const key = () =>
    ['b', 'a', 'B', 'é', '10', '9', '0', '01', '4294967294', '4294967295', '-1', '1.5', 'a b', '"q"', '\u2028', 'Z'][
      Math.floor(rng() * 16)
    ]!;
  switch (pick) {
    case 0:
      return null;
    case 1:
      return rng() < 0.5;
    case 2:
      return [0, -0, 1.5, -12, 1e21, 2 ** 53, NaN, Infinity][Math.floor(rng() * 8)];
    case 3:
      return ['', 'text', 'ünï\u0000\n"\\', '\ud800', '😀'][Math.floor(rng() * 5)];
    case 4:
      return undefined;
    case 5:
      return [new Date(Date.UTC(2026, 10, 27)), () => 1, Symbol('s')][Math.floor(rng() * 3)];
    case 6:
    case 7:
      return Array.from({ length: Math.floor(rng() * 4) }, () => randomValue(rng, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(rng() * 6); i > 0; i--) o[key()] = randomValue(rng, depth + 1);
      if (rng() < 0.05) return { toJSON: (k: string) => ({ key: k, inner: o }) };
      return o;
    }
  }
}

function seeded(seed: number): () => number {
  let s = seed;
  return () => (s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
}

describe('canonicalJson', () => {
  it('writes what its definition writes, for 5,000 random values and every event contract fixture', () => {
    const rng = seeded(42);
    let checked = 0;
    for (let i = 0; i < 5_000; i++, checked++) {
      const value = randomValue(rng);
      expect(canonicalJson(value), JSON.stringify(byDefinition(value))).to.equal(byDefinition(value));
    }
    for (const { fixture } of Object.values(EVENT_CONTRACTS)) {
      expect(canonicalJson(fixture)).to.equal(byDefinition(fixture));
      checked++;
    }
    expect(checked).to.be.greaterThan(5_000);
  });

  it('lists array-index keys first, in numeric order, as a rebuilt object does', () => {
    expect(canonicalJson({ b: 1, 10: 2, 9: 3, '01': 4, 4294967295: 5, a: [{ z: 1, y: undefined }] })).to.equal(
      '{"9":3,"10":2,"01":4,"4294967295":5,"a":[{"z":1}],"b":1}',
    );
  });
});
