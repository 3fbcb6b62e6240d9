import { expect } from 'chai';
import { nextDispatch, retryDelayMs, type PendingReceipt } from '../../src/domain/mutation/dispatch-order.js';

const backoff = { baseMs: 1000, maxMs: 8000 };
const T = Date.parse('2026-11-20T10:00:00.000Z');
const r = (id: string, status: PendingReceipt['status'], o: Partial<PendingReceipt> = {}): PendingReceipt => ({
  id,
  status,
  action: 'update',
  outcome: null,
  attempts: 0,
  recorded_at: null,
  ...o,
});

describe('nextDispatch: which request of a target goes next', () => {
  it('sends the oldest queued request, skipping settled ones', () => {
    expect(
      nextDispatch([r('a', 'submitted'), r('b', 'blocked'), r('c', 'queued'), r('d', 'queued')], T, backoff),
    ).to.deep.equal({ kind: 'send', receipt_id: 'c' });
  });

  it('has nothing to do when nothing is queued', () => {
    expect(nextDispatch([], T, backoff)).to.deep.equal({ kind: 'idle' });
    expect(
      nextDispatch([r('a', 'submitted'), r('b', 'unresolved', { action: 'create_ad_group' })], T, backoff),
    ).to.deep.equal({ kind: 'idle' });
  });

  it('an uncertain non-creation holds back every later request of the target', () => {
    expect(nextDispatch([r('a', 'uncertain'), r('b', 'queued')], T, backoff)).to.deep.equal({ kind: 'held', by: 'a' });
    expect(nextDispatch([r('a', 'uncertain', { action: 'archive' }), r('b', 'queued')], T, backoff)).to.deep.equal({
      kind: 'held',
      by: 'a',
    });
  });

  it('an uncertain creation does not hold back its parent', () => {
    expect(
      nextDispatch([r('a', 'uncertain', { action: 'create_ad_group' }), r('b', 'queued')], T, backoff),
    ).to.deep.equal({ kind: 'send', receipt_id: 'b' });
  });

  it('a receipt found submitting under the lock was interrupted mid-send', () => {
    expect(nextDispatch([r('a', 'submitting'), r('b', 'queued')], T, backoff)).to.deep.equal({
      kind: 'interrupted',
      receipt_id: 'a',
    });
  });

  it('a retryable rejection waits out its backoff, and later requests wait behind it', () => {
    const at = new Date(T).toISOString();
    const receipts = [r('a', 'queued', { outcome: 'retryable', attempts: 2, recorded_at: at }), r('b', 'queued')];
    expect(nextDispatch(receipts, T + 1999, backoff)).to.deep.equal({ kind: 'wait', receipt_id: 'a', until: T + 2000 });
    expect(nextDispatch(receipts, T + 2000, backoff)).to.deep.equal({ kind: 'send', receipt_id: 'a' });
  });

  it('backoff doubles per attempt up to its cap', () => {
    expect([1, 2, 3, 4, 5, 9].map((n) => retryDelayMs(n, backoff))).to.deep.equal([1000, 2000, 4000, 8000, 8000, 8000]);
  });
});
