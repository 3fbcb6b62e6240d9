import { z } from 'zod';
import { addDays, daysBetween, localDate } from '../domain/shared/calendar.js';
import { DomainError } from '../domain/shared/errors.js';

// The `since` / `until` rules of spec 4.2, and `limit`.
// - Instant windows (events, listings): a full timestamp is an exact instant, a bare date the
//   whole UTC day; `until` is exclusive at an instant but inclusive of its named day.
// - Day windows (sales in the marketplace's local time, ads on the profile-local report date):
//   whole calendar days; default the trailing 30 days ending today; span at most 400 days.

export const sinceArgument = z
  .string()
  .optional()
  .describe('ISO 8601 date or timestamp: start of the window (a bare date is a whole day)');
export const untilArgument = z
  .string()
  .optional()
  .describe('ISO 8601 date or timestamp: end of the window, exclusive at an instant, inclusive of a named day');

/** What a windowed read names: an account (else all), a marketplace (else all), the window. */
export interface WindowedRead {
  account?: string | undefined;
  marketplace_id?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

export const limitArgument = (fallback = 20, max = 100) =>
  z.number().int().min(1).max(max).default(fallback).describe(`rows to return, default ${fallback}, at most ${max}`);

export const DEFAULT_WINDOW_DAYS = 30;
export const MAX_WINDOW_DAYS = 400;
const DAY_MS = 86_400_000;

type Bound = { kind: 'date'; date: string } | { kind: 'instant'; at: Date };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// date, 'T', time with optional fraction, and an offset (Z or ±hh:mm): no local-time guesses
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

function isRealDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === value;
}

/** One `since` / `until` value read, or `invalid_window` naming it and why. */
export function parseBound(name: 'since' | 'until', value: string): Bound {
  const v = value.trim();
  if (DATE.test(v)) {
    if (!isRealDate(v))
      throw new DomainError('invalid_window', `${name}: '${value}' is not a calendar date`, { argument: name });
    return { kind: 'date', date: v };
  }
  if (INSTANT.test(v) && isRealDate(v.slice(0, 10))) {
    const at = new Date(v);
    if (!Number.isNaN(at.getTime())) return { kind: 'instant', at };
  }
  throw new DomainError(
    'invalid_window',
    `${name}: '${value}' is not an ISO 8601 date (YYYY-MM-DD) or timestamp with an offset (YYYY-MM-DDThh:mm:ssZ)`,
    {
      argument: name,
    },
  );
}

export interface InstantWindow {
  /** inclusive; null when open */
  since: Date | null;
  /** exclusive; null when open */
  until: Date | null;
}

const startOfUtcDay = (date: string) => new Date(`${date}T00:00:00.000Z`);

/** An instant window: bare dates are whole UTC days. */
export function instantWindow(since: string | undefined, until: string | undefined): InstantWindow {
  const s = since === undefined ? undefined : parseBound('since', since);
  const u = until === undefined ? undefined : parseBound('until', until);
  const window: InstantWindow = {
    since: s === undefined ? null : s.kind === 'date' ? startOfUtcDay(s.date) : s.at,
    until: u === undefined ? null : u.kind === 'date' ? new Date(startOfUtcDay(u.date).getTime() + DAY_MS) : u.at,
  };
  if (window.since && window.until && window.since >= window.until) {
    throw new DomainError('invalid_window', `since (${since}) must be before until (${until})`, { argument: 'since' });
  }
  return window;
}

export interface DayWindow {
  /** first local day, inclusive */
  first: string;
  /** last local day, inclusive */
  last: string;
  days: number;
}

/**
 * Whole local days in `timeZone`. A bare date names that local day; an instant falls on the
 * local day that contains it (`until` exclusive: the day of the instant just before it).
 * Defaults: `until` today, `since` so that the window holds 30 days.
 */
export function dayWindow(
  since: string | undefined,
  until: string | undefined,
  timeZone: string,
  now: Date,
  maxDays = MAX_WINDOW_DAYS,
): DayWindow {
  const s = since === undefined ? undefined : parseBound('since', since);
  const u = until === undefined ? undefined : parseBound('until', until);
  const last =
    u === undefined
      ? localDate(now, timeZone)
      : u.kind === 'date'
        ? u.date
        : localDate(new Date(u.at.getTime() - 1), timeZone);
  const first =
    s === undefined
      ? addDays(last, -(DEFAULT_WINDOW_DAYS - 1))
      : s.kind === 'date'
        ? s.date
        : localDate(s.at, timeZone);
  const days = daysBetween(first, last) + 1;
  if (days < 1)
    throw new DomainError('invalid_window', `since (${since ?? first}) is after until (${until ?? last})`, {
      argument: 'since',
    });
  if (days > maxDays)
    throw new DomainError('invalid_window', `the window spans ${days} days; at most ${maxDays}`, {
      argument: 'since',
      max_days: maxDays,
    });
  return { first, last, days };
}

/** The window of the same length just before `w` (for `compare_to_previous`). */
export function previousWindow(w: DayWindow): DayWindow {
  return { first: addDays(w.first, -w.days), last: addDays(w.first, -1), days: w.days };
}
