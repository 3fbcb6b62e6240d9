import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { DAY_MS } from '../../domain/shared/calendar.js';

// An orders report window's rows set aside by day while they stream, one file of JSON lines per
// UTC day of purchase in a directory of its own: an order's lines may lie anywhere in the window,
// so no day is whole before the last row, and a busy seller's 30 days of rows (a few hundred
// thousand objects) would not fit the service's heap. A day's rows are read back when that day is
// recorded: the memory is a day's, and what the window keeps until then is an order id → day map.

type Row = Record<string, string>;

export interface OrderDays {
  /** The day's orders: each order's lines, in the order the report first named them. Once: its file goes. */
  ordersOf(day: number): Promise<Row[][]>;
  /** Removes the files. */
  close(): Promise<void>;
}

/**
 * The rows of the days `from`..`to` (UTC day numbers) of a GET_FLAT_FILE_ALL_ORDERS_DATA_BY_ORDER_DATE_GENERAL
 * report, each order's lines under the day of purchase of its first line (as its `PurchaseDate`
 * will say); rows of other days, or without an order id, are left out.
 */
export async function orderDaysOf(
  batches: AsyncIterable<readonly Row[]>,
  { from, to }: { from: number; to: number },
): Promise<OrderDays> {
  const dir = await mkdtemp(join(tmpdir(), 'orders-window-'));
  const files = new Map<number, WriteStream>();
  const path = (day: number) => join(dir, `${day}.jsonl`);
  try {
    const dayOfOrder = new Map<string, number>();
    for await (const rows of batches)
      for (const row of rows) {
        const id = row['amazon-order-id'];
        if (!id) continue;
        let day = dayOfOrder.get(id);
        if (day === undefined) {
          day = Math.floor(Date.parse(row['purchase-date'] ?? '') / DAY_MS);
          dayOfOrder.set(id, day);
        }
        if (!(day >= from && day <= to)) continue;
        let file = files.get(day);
        if (!file) files.set(day, (file = createWriteStream(path(day))));
        if (!file.write(`${JSON.stringify(row)}\n`)) await once(file, 'drain');
      }
    await Promise.all([...files.values()].map((f) => new Promise((resolve) => f.end(resolve))));
  } catch (err) {
    for (const f of files.values()) f.destroy();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    async ordersOf(day) {
      if (!files.has(day)) return [];
      const orders = new Map<string, Row[]>();
      // split on \n alone: JSON text may hold U+2028, which readline would take for a line's end
      for (const line of (await readFile(path(day), 'utf8')).split('\n')) {
        if (!line) continue;
        const row = JSON.parse(line) as Row;
        const id = row['amazon-order-id']!;
        const lines = orders.get(id);
        if (lines) lines.push(row);
        else orders.set(id, [row]);
      }
      files.delete(day);
      await rm(path(day), { force: true });
      return [...orders.values()];
    },
    close: () => rm(dir, { recursive: true, force: true }),
  };
}
