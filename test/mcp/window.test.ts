import { expect } from 'chai';
import { DomainError } from '../../src/domain/shared/errors.js';
import { localDate } from '../../src/domain/shared/calendar.js';
import { dayWindow, instantWindow, previousWindow } from '../../src/mcp/window.js';

// Spec 4.2: bare dates, instants, exclusive/inclusive `until`, local days, defaults and the cap.

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return `${err.code}: ${err.detail}`;
    throw err;
  }
  throw new Error('expected a DomainError');
}

describe('since / until windows (spec 4.2)', () => {
  describe('instant windows', () => {
    it('a bare date covers the whole UTC day on both ends (until inclusive of its named day)', () => {
      const w = instantWindow('2026-03-01', '2026-03-01');
      expect(w.since!.toISOString()).to.equal('2026-03-01T00:00:00.000Z');
      expect(w.until!.toISOString()).to.equal('2026-03-02T00:00:00.000Z');
    });

    it('an instant is exact, and until is exclusive at it', () => {
      const w = instantWindow('2026-03-01T10:15:00+02:00', '2026-03-01T12:00:00Z');
      expect(w.since!.toISOString()).to.equal('2026-03-01T08:15:00.000Z');
      expect(w.until!.toISOString()).to.equal('2026-03-01T12:00:00.000Z');
      expect(instantWindow(undefined, undefined)).to.deep.equal({ since: null, until: null });
    });

    it('unreadable values, impossible dates, missing offsets and empty windows are invalid_window naming the argument', () => {
      expect(code(() => instantWindow('yesterday', undefined))).to.match(/^invalid_window: since: 'yesterday'/);
      expect(code(() => instantWindow(undefined, '2026-02-30'))).to.match(
        /^invalid_window: until: '2026-02-30' is not a calendar date/,
      );
      expect(code(() => instantWindow('2026-03-01T10:00:00', undefined))).to.match(/^invalid_window: since:/);
      expect(code(() => instantWindow('2026-03-02', '2026-03-01'))).to.match(
        /^invalid_window: since \(2026-03-02\) must be before until/,
      );
      expect(code(() => instantWindow('2026-03-01T12:00:00Z', '2026-03-01T12:00:00Z'))).to.match(/^invalid_window/);
    });
  });

  describe('local day windows', () => {
    const LA = 'America/Los_Angeles';
    const now = new Date('2026-03-10T05:00:00Z'); // still 9 March in Los Angeles

    it('defaults to the trailing 30 local days ending today in the time zone', () => {
      expect(localDate(now, LA)).to.equal('2026-03-09');
      expect(dayWindow(undefined, undefined, LA, now)).to.deep.equal({
        first: '2026-02-08',
        last: '2026-03-09',
        days: 30,
      });
      expect(dayWindow(undefined, undefined, 'Asia/Tokyo', now)).to.deep.equal({
        first: '2026-02-09',
        last: '2026-03-10',
        days: 30,
      });
    });

    it('an instant falls on its local day; until at an instant excludes it', () => {
      // 07:59Z is still 23:59 on 1 March in Los Angeles (PST, UTC-8)
      expect(dayWindow('2026-03-02T07:59:00Z', '2026-03-03T08:00:00Z', LA, now)).to.deep.equal({
        first: '2026-03-01',
        last: '2026-03-02',
        days: 2,
      });
      expect(dayWindow('2026-03-01', '2026-03-01', LA, now)).to.deep.equal({
        first: '2026-03-01',
        last: '2026-03-01',
        days: 1,
      });
    });

    it('caps the span at 400 days and refuses since after until', () => {
      expect(dayWindow('2025-01-01', '2026-02-04', LA, now).days).to.equal(400);
      expect(code(() => dayWindow('2025-01-01', '2026-02-05', LA, now))).to.equal(
        'invalid_window: the window spans 401 days; at most 400',
      );
      expect(code(() => dayWindow('2026-03-05', '2026-03-04', LA, now))).to.match(
        /^invalid_window: since \(2026-03-05\) is after until/,
      );
    });

    it('the previous window has the same length and ends the day before', () => {
      expect(previousWindow({ first: '2026-03-01', last: '2026-03-10', days: 10 })).to.deep.equal({
        first: '2026-02-19',
        last: '2026-02-28',
        days: 10,
      });
    });
  });
});
