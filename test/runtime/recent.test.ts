import { expect } from 'chai';
import { Recent } from '../../src/runtime/live/recent.js';

describe('Recent (reads the live reactor repeats per account)', () => {
  const world = () => {
    const t = { now: 0, reads: [] as string[], fail: false };
    const recent = new Recent(
      1_000,
      async (key) => {
        t.reads.push(key);
        if (t.fail) throw new Error('unreachable');
        return `${key}@${t.now}`;
      },
      () => t.now,
    );
    return { t, recent };
  };

  it('serves a read for ttl, per key, then reads again', async () => {
    const { t, recent } = world();
    expect(await recent.get('a')).to.equal('a@0');
    t.now = 999;
    expect(await recent.get('a')).to.equal('a@0');
    expect(await recent.get('b')).to.equal('b@999');
    t.now = 1_000;
    expect(await recent.get('a')).to.equal('a@1000');
    expect(t.reads).to.deep.equal(['a', 'b', 'a']);
  });

  it('clear forgets every read kept: the next get of each key reads again', async () => {
    const { t, recent } = world();
    await recent.get('a');
    await recent.get('b');
    t.now = 10;
    recent.clear();
    expect(await recent.get('a')).to.equal('a@10');
    expect(t.reads).to.deep.equal(['a', 'b', 'a']);
  });

  it('forgets a failed read at once: the next get reads again', async () => {
    const { t, recent } = world();
    t.fail = true;
    const failed = await recent.get('a').catch((e: Error) => e.message);
    expect(failed).to.equal('unreachable');
    t.fail = false;
    t.now = 1;
    expect(await recent.get('a')).to.equal('a@1');
    expect(t.reads).to.deep.equal(['a', 'a']);
  });
});
