import { expect } from 'chai';
import { oneAtATime } from '../../src/workers/sync/scope.js';

// The turn-taker that keeps a backfill's orders windows from being held in memory together.
describe('oneAtATime', () => {
  it('runs each call alone, in call order, and a failure neither stops nor delays the next', async () => {
    const inTurn = oneAtATime();
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const job =
      (n: number, fail = false) =>
      async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5 * (4 - n)));
        order.push(n);
        running--;
        if (fail) throw new Error(`job ${n} failed`);
        return n;
      };
    const results = await Promise.allSettled([inTurn(job(1)), inTurn(job(2, true)), inTurn(job(3))]);
    expect(most, 'never two at once').to.equal(1);
    expect(order, 'in call order, though the first is the slowest').to.deep.equal([1, 2, 3]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).to.deep.equal([
      1,
      'job 2 failed',
      3,
    ]);
  });
});
