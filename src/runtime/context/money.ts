import { minorDigits } from '../../projections/observed/economics-support.js';

// Contexts state money in major units (spec 1.10: 15.27 where a tool says 1527); the read models
// hold integer minor units. The currency's own exponent converts: whole units where it has no
// subunit (JPY), three digits where it has three (BHD).

/** Integer minor units of `currency` as major units; null stays null. */
export function majorUnits(minor: number | string | null | undefined, currency: string): number | null {
  if (minor === null || minor === undefined) return null;
  const digits = minorDigits(currency);
  // divide on the decimal string, not in floating point, so 1527 is 15.27 and never 15.270000000000001
  const n = BigInt(minor);
  const sign = n < 0n ? '-' : '';
  const text = (n < 0n ? -n : n).toString().padStart(digits + 1, '0');
  return Number(digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`);
}

/** A major-unit amount as the ads API's decimal string ("50.0", "0.75"); null when there is none. */
export const decimalString = (v: unknown): string | null =>
  typeof v === 'number' && Number.isFinite(v) ? (Number.isInteger(v) ? v.toFixed(1) : String(v)) : null;
