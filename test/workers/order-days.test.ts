import { mkdir, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { DAY_MS } from '../../src/domain/shared/calendar.js';
import { orderDaysOf } from '../../src/workers/sync/order-days.js';

// An orders report window's rows set aside by day on disk: each order's lines under the day of its
// first line, whatever order the report gives them in; the files gone once read or closed.

const DAY = Date.parse('2026-03-10T00:00:00Z') / DAY_MS;
const row = (id: string, day: number, sku: string, time = '10:00:00'): Record<string, string> => ({
  'amazon-order-id': id,
  'purchase-date': `${new Date(day * DAY_MS).toISOString().slice(0, 10)}T${time}+00:00`,
  sku,
  'item-price': '12.50',
});
const windows = async () => readdir(join(tmpdir(), 'orders-windows')).catch((): string[] => []);

async function* batches(...chunks: Record<string, string>[][]): AsyncIterable<Record<string, string>[]> {
  for (const chunk of chunks) yield chunk;
}

describe('orderDaysOf', () => {
  it("groups each order's lines under the day of its first line, in the order the report named them", async () => {
    const before = await windows();
    const days = await orderDaysOf(
      batches(
        [row('A', DAY, 'a1'), row('B', DAY + 1, 'b1'), row('C', DAY, 'c1', '23:59:59')],
        // A's second line comes a batch later; B's names another day (its first line's decides)
        [row('A', DAY, 'a2'), row('B', DAY + 2, 'b2'), { sku: 'no order id' }, row('D', DAY + 9, 'outside')],
        [row('E', DAY - 1, 'before'), { 'amazon-order-id': 'F', 'purchase-date': 'not a date', sku: 'f' }],
      ),
      { from: DAY, to: DAY + 2 },
    );
    expect(await windows()).to.have.length(before.length + 1);
    const skus = async (day: number) =>
      (await days.ordersOf(day)).map((lines) => lines.map((l) => [l['amazon-order-id'], l.sku]));
    expect(await skus(DAY)).to.deep.equal([
      [
        ['A', 'a1'],
        ['A', 'a2'],
      ],
      [['C', 'c1']],
    ]);
    expect(await skus(DAY + 1)).to.deep.equal([
      [
        ['B', 'b1'],
        ['B', 'b2'],
      ],
    ]);
    expect(await skus(DAY + 2), 'a day without orders').to.deep.equal([]);
    expect(await days.ordersOf(DAY), 'a day is read once: its file is gone').to.deep.equal([]);
    await days.close();
    expect(await windows()).to.deep.equal(before);
  });

  it('keeps a row whole as the report gave it, and leaves no files when the report fails mid-stream', async () => {
    const before = await windows();
    const odd = { ...row('G', DAY, 'sku "quoted"\nnewline'), note: 'é ✓ \u2028' };
    const days = await orderDaysOf(batches([odd]), { from: DAY, to: DAY });
    expect(await days.ordersOf(DAY)).to.deep.equal([[odd]]);
    await days.close();
    async function* failing(): AsyncIterable<Record<string, string>[]> {
      yield [row('H', DAY, 'h1')];
      throw new Error('download cut');
    }
    const err = await orderDaysOf(failing(), { from: DAY, to: DAY }).catch((e: Error) => e);
    expect((err as Error).message).to.equal('download cut');
    expect(await windows()).to.deep.equal(before);
  });

  it('fails the window, not the process, when a day cannot be written, and leaves no files', async () => {
    const before = await windows();
    async function* lost(): AsyncIterable<Record<string, string>[]> {
      yield [row('I', DAY, 'i1')];
      // the window's directory gone (as on a disk that failed): the next day's file cannot open
      for (const name of await windows())
        if (!before.includes(name)) await rm(join(tmpdir(), 'orders-windows', name), { recursive: true });
      yield [row('J', DAY + 1, 'j1')];
    }
    const err = await orderDaysOf(lost(), { from: DAY, to: DAY + 1 }).catch((e: NodeJS.ErrnoException) => e);
    expect((err as NodeJS.ErrnoException).code).to.equal('ENOENT');
    expect(await windows()).to.deep.equal(before);
  });

  it('removes a window a killed process left a day ago, and keeps a recent one', async () => {
    const parent = join(tmpdir(), 'orders-windows');
    const [old, recent] = [join(parent, 'window-left-old'), join(parent, 'window-left-recent')];
    await mkdir(old, { recursive: true });
    await mkdir(recent, { recursive: true });
    const twoDaysAgo = new Date(Date.now() - 2 * DAY_MS);
    await utimes(old, twoDaysAgo, twoDaysAgo);
    try {
      await (await orderDaysOf(batches([]), { from: DAY, to: DAY })).close();
      const left = await windows();
      expect(left).to.include('window-left-recent').and.not.include('window-left-old');
    } finally {
      await rm(old, { recursive: true, force: true });
      await rm(recent, { recursive: true, force: true });
    }
  });
});
