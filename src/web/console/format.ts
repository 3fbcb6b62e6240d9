import { marketplaceById } from '../../domain/shared/marketplaces.js';
import { majorUnits } from '../../runtime/context/money.js';

// How the console writes figures: money in its own currency, never summed with another.

const formats = new Map<string, Intl.NumberFormat>();
const currencyFormat = (currency: string) => {
  let f = formats.get(currency);
  if (!f) formats.set(currency, (f = new Intl.NumberFormat('en', { style: 'currency', currency })));
  return f;
};

/** Integer minor units of `currency` as money: 1234 EUR is €12.34, 1234 JPY is ¥1,234. */
export const money = (minor: number, currency: string): string =>
  currencyFormat(currency).format(majorUnits(minor, currency)!);

export const count = (n: number): string => n.toLocaleString('en');

/** e.g. "Amazon.de", or the id of a marketplace the service does not know */
export const marketplaceName = (id: string): string => marketplaceById(id)?.name ?? id;

/** `n` of `of` as a whole percentage, or a dash when `of` is 0 */
export const percent = (n: number, of: number): string => (of === 0 ? '–' : `${Math.round((100 * n) / of)}%`);

/** An ISO time as "2026-05-20 20:00:00 UTC" */
export const utcTime = (iso: string): string =>
  new Date(iso)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
