import { marketplaceById } from '../../domain/shared/marketplaces.js';
import { majorUnits } from '../../runtime/context/money.js';
import { html, type Html } from '../page.js';

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

/** An instant as a `<time>` in UTC to the second ("2026-12-03 03:37:29 UTC"); a dash when there is none. */
export function timeOf(at: string | Date | null | undefined, className?: string): Html | string {
  if (!at) return '—';
  const iso = new Date(at).toISOString();
  const shown = `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
  return className
    ? html`<time class="${className}" datetime="${iso}">${shown}</time>`
    : html`<time datetime="${iso}">${shown}</time>`;
}
