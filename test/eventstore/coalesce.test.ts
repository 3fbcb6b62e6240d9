import { expect } from 'chai';
import { coalesced } from '../../src/eventstore/coalesce.js';

describe('coalesced', () => {
  it('runs the first call at once, however long its interval (even one longer than the process has run)', () => {
    let runs = 0;
    const call = coalesced(() => runs++, 1e12);
    call();
    expect(runs).to.equal(1);
    // within the interval: the calls share one later run
    call();
    call();
    expect(runs).to.equal(1);
    call.cancel();
  });

  it('runs the calls made within the interval once, when it has passed', async () => {
    let runs = 0;
    const call = coalesced(() => runs++, 30);
    call();
    call();
    call();
    expect(runs).to.equal(1);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(runs).to.equal(2);
  });
});
