import { expect } from 'chai';
import { AccountWaves } from '../../src/runtime/live/batch.js';

// An account's waves (docs/decisions/154-bounded-waves-and-lease-lapses.md): a lone event goes at
// once; a backlog forms a wave per answered reading, at most `cap` of an account in flight, in
// order, each up to `size`; other accounts are not held by it.

interface Wave {
  group: string;
  items: number[];
  read: () => void;
  over: () => void;
}

/** A few turns of the event loop: a wave over (a promise) forms the next a turn later. */
const turn = async () => {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

describe('live waves per account (AccountWaves)', () => {
  const start = (size: number, cap: number) => {
    const waves: Wave[] = [];
    let inFlight = 0;
    let most = 0;
    const formed = new AccountWaves<{ group: string; n: number }>(
      size,
      cap,
      (wave, read) =>
        new Promise<void>((over) => {
          inFlight++;
          most = Math.max(most, inFlight);
          waves.push({
            group: wave[0]!.group,
            items: wave.map((w) => w.n),
            read,
            over: () => {
              inFlight--;
              over();
            },
          });
        }),
    );
    const add = (group: string, ...ns: number[]) => ns.forEach((n) => formed.add(group, { group, n }));
    return { waves, add, most: () => most };
  };

  it('a lone event goes at once', async () => {
    const w = start(32, 2);
    w.add('a', 1);
    await turn();
    expect(w.waves.map((x) => x.items)).to.deep.equal([[1]]);
  });

  it('a backlog runs as at most `cap` waves of the account at once, in order, each up to `size`', async () => {
    const w = start(3, 2);
    w.add('a', ...Array.from({ length: 10 }, (_, i) => i));
    w.add('b', 100);
    await turn();
    // one wave of each account reading
    expect(w.waves.map((x) => x.items)).to.deep.equal([[0, 1, 2], [100]]);
    w.waves[0]!.read();
    await turn();
    expect(w.waves.at(-1)!.items).to.deep.equal([3, 4, 5]);
    // read, but two of a's in flight: the next waits for one to be over
    w.waves.at(-1)!.read();
    await turn();
    expect(w.waves).to.have.length(3);
    w.waves[0]!.over();
    await turn();
    expect(w.waves.at(-1)!.items).to.deep.equal([6, 7, 8]);
    // a wave over before it read frees both
    w.waves[1]!.over();
    w.waves.at(-1)!.over();
    await turn();
    expect(w.waves.at(-1)!.items).to.deep.equal([9]);
    expect(w.waves.filter((x) => x.group === 'a').flatMap((x) => x.items)).to.deep.equal(
      Array.from({ length: 10 }, (_, i) => i),
    );
    expect(w.most()).to.equal(3); // two of a's and b's one
  });
});
