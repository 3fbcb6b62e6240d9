import { minorDigits } from '../catalog.js';

/** The reports' Amount / CurrencyAmount: major units as a JSON number. */
export interface WireAmount {
  amount: number;
  currencyCode: string;
}

export const wireAmount = (minor: number, currency: string): WireAmount => ({
  amount: minor / 10 ** minorDigits(currency),
  currencyCode: currency,
});

/** Major units as a plain number (the coupon and promotion reports' style). */
export const major = (minor: number, currency: string): number => minor / 10 ** minorDigits(currency);

/** Rounds a share of a price to the currency's minor unit (whole yen for JPY). */
export const share = (minor: number, fraction: number): number => Math.round(minor * fraction);
