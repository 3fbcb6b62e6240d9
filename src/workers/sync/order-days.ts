import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { DAY_MS } from '../../domain/shared/calendar.js';

// An orders report window's rows set aside by day while they stream, one file of JSON lines per
// UTC day of purchase in a directory of its own: an order's lines may lie anywhere in the window,
// so no day is whole before the last row, and a busy seller's 30 days of rows (a few hundred
// thousand objects) would not fit the service's heap. A day's rows are read back when that day is
// recorded: the memory is a day's, and what the window keeps until then is an order id → day map.
// A write that fails (a full disk) fails the window, and its directory goes; one a killed process
// left behind is removed by the next process that sets a window aside, a day later.

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
  await mkdir(WINDOWS, { recursive: true });
  await removeLeftWindows();
  const dir = await mkdtemp(join(WINDOWS, 'window-'));
  const files = new Map<number, WriteStream>();
  const path = (day: number) => join(dir, `${day}.jsonl`);
  let failed: Error | null = null;
  const open = (day: number) => {
    const file = createWriteStream(path(day));
    file.on('error', (err) => (failed ??= err));
    files.set(day, file);
    return file;
  };
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
        const file = files.get(day) ?? open(day);
        if (failed) throw failed;
        // once rejects on the stream's 'error'; a stream already failed gets no 'drain'
        if (!file.write(`${JSON.stringify(row)}\n`) && !file.errored) await once(file, 'drain');
      }
    if (failed) throw failed;
    await Promise.all([...files.values()].map((f) => finished(f.end())));
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

/** Where windows wait: one directory of the system's temporary one, shared by the processes of a host. */
const WINDOWS = join(tmpdir(), 'orders-windows');
/** A window is recorded within minutes: one this old was left by a process that died. */
const LEFT_AFTER_MS = DAY_MS;

/** Removes windows older than LEFT_AFTER_MS (a failure to is no reason to fail a sync). */
async function removeLeftWindows(): Promise<void> {
  for (const name of await readdir(WINDOWS).catch((): string[] => [])) {
    const at = join(WINDOWS, name);
    const changed = (await stat(at).catch(() => null))?.mtimeMs;
    if (changed !== undefined && Date.now() - changed > LEFT_AFTER_MS)
      await rm(at, { recursive: true, force: true }).catch(() => undefined);
  }
}
