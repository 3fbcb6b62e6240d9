// Calendar dates (YYYY-MM-DD) as the ads API uses them: report dates are days in the profile's
// time zone, so "today" depends on where the profile is.

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The date at instant `at` in the IANA time zone `timeZone`. */
export function localDate(at: Date | number, timeZone: string): string {
  let format = formatters.get(timeZone);
  if (!format) {
    // en-CA formats dates as YYYY-MM-DD
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(timeZone, format);
  }
  return format.format(at);
}

export const DAY_MS = 86_400_000;
const toUtcMs = (date: string): number => Date.parse(`${date}T00:00:00Z`);

export function addDays(date: string, days: number): string {
  return new Date(toUtcMs(date) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((toUtcMs(to) - toUtcMs(from)) / DAY_MS);
}

/** Every date from `from` to `to`, both included. */
export function datesFrom(from: string, to: string): string[] {
  const n = daysBetween(from, to);
  return Array.from({ length: Math.max(0, n + 1) }, (_, i) => addDays(from, i));
}
