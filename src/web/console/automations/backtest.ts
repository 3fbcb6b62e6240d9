import { addDays } from '../../../domain/shared/calendar.js';
import type { BacktestResult } from '../../../domain/backtest/result.js';
import { csrfField, html, type Html } from '../../page.js';
import { barChart } from '../chart.js';
import { count } from '../format.js';
import { described, errorBeside, type FieldErrors, type Fields } from './form.js';

// The backtest panel: backtest_automation over whole UTC days; the backtest's own page shows its
// progress (reloading itself while it runs) and, once done, its per-day chart and would-be changes.

export interface BacktestForm {
  since: string;
  until: string;
}

export interface BacktestAnswer {
  backtest_id: string;
  status: 'queued' | 'running' | 'completed' | 'cancelled' | 'failed';
  automation_version: number;
  since: string;
  until: string;
  progress: { done: number; total: number } | null;
  error: string | null;
  result: BacktestResult | null;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The last 7 days, today's included. */
export const defaultWindow = (today: string): BacktestForm => ({ since: addDays(today, -6), until: today });

/** backtest_automation's since and until (until: the end of its day), or what is wrong with the form. */
export function backtestArguments(
  f: Fields,
): { form: BacktestForm; args: { since: string; until: string } } | { form: BacktestForm; errors: FieldErrors } {
  const form = { since: f.since?.trim() ?? '', until: f.until?.trim() ?? '' };
  const errors: FieldErrors = {};
  for (const name of ['since', 'until'] as const)
    if (!DAY.test(form[name]) || Number.isNaN(Date.parse(form[name]))) errors[name] = 'Enter a day as YYYY-MM-DD.';
  if (Object.keys(errors).length) return { form, errors };
  return { form, args: { since: `${form.since}T00:00:00.000Z`, until: `${addDays(form.until, 1)}T00:00:00.000Z` } };
}

export function backtestPanel(action: string, token: string, form: BacktestForm, errors: FieldErrors): Html {
  return html`<section aria-labelledby="backtest" id="backtest-panel">
    <h2 id="backtest">Backtest</h2>
    <p>Replays the current code over the recorded events of its type (kept one month), in UTC days: nothing is sent.</p>
    <form method="post" action="${action}#backtest-panel" class="filters">
      ${csrfField(token)}
      <div>
        <label for="since">From</label>
        <input type="date" id="since" name="since" value="${form.since}" ${described('since', errors)} />
        ${errorBeside('since', errors)}
      </div>
      <div>
        <label for="until">To (included)</label>
        <input type="date" id="until" name="until" value="${form.until}" ${described('until', errors)} />
        ${errorBeside('until', errors)}
      </div>
      <button type="submit">Backtest</button>
    </form>
  </section>`;
}

const BLUE = '#1a5fb4';
const ORANGE = '#b35900';
const RED = '#a51d2d';

/** A backtest's page content: progress, or its chart, totals and would-be changes. */
export function backtestBody(b: BacktestAnswer): Html {
  const head = html`<p>
    Version ${b.automation_version}, ${b.since} to ${b.until}: <strong class="status">${b.status}</strong>${
      b.progress ? `, ${count(b.progress.done)} of ${count(b.progress.total)} events replayed` : ''
    }.
  </p>`;
  if (b.status === 'failed')
    return html`${head}
      <p class="field-error" role="alert">${b.error ?? ''}</p>`;
  const r = b.result;
  if (!r)
    return html`${head}
      <p>This page reloads itself until the backtest is done.</p>`;
  const days = r.series.map((s) => s.day);
  return html`${head}
    ${
      days.length
        ? barChart({
            id: 'backtest',
            title: 'Would-be changes per day',
            description:
              'Requests the automation would have made each day, blocked ones and failed runs stacked on top.',
            days,
            series: [
              { name: 'Changes', values: r.series.map((s) => s.changes), color: BLUE },
              { name: 'Blocked', values: r.series.map((s) => s.blocked), color: ORANGE },
              {
                name: 'Failures',
                values: r.series.map((s) => s.execution_errors + s.validation_failures),
                color: RED,
              },
            ],
            format: count,
          })
        : html`<p>No events of its type in the window.</p>`
    }
    <dl class="facts">
      <dt>Events replayed</dt>
      <dd>${count(r.totals.events_replayed)} of ${count(r.events_in_window)}</dd>
      <dt>Would-be changes</dt>
      <dd>${count(r.totals.changes)}</dd>
      <dt>Blocked</dt>
      <dd>${count(r.totals.blocked)}</dd>
      <dt>Execution errors</dt>
      <dd>${count(r.totals.execution_errors)}</dd>
      <dt>Missing field reads</dt>
      <dd>${count(r.totals.missing_field_reads)}</dd>
      <dt>Live runs on the same events</dt>
      <dd>${count(r.totals.live_runs)}, ${count(r.totals.live_changes)} changes applied</dd>
    </dl>
    <h2>Would-be changes</h2>
    ${
      r.changes.length
        ? html`<div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Target</th>
                  <th scope="col">Action</th>
                  <th scope="col">Times</th>
                  <th scope="col">Last value</th>
                  <th scope="col">Marketplace showed</th>
                </tr>
              </thead>
              <tbody>
                ${r.changes.map((c) => {
                  const last = c.changes.at(-1);
                  return html`<tr>
                    <td>${c.target ? `${c.target.type} ${c.sku ?? c.target.id ?? ''}` : ''}</td>
                    <td>${c.action ?? ''}</td>
                    <td>${count(c.count)}</td>
                    <td>${last?.value ?? ''}</td>
                    <td>${last?.marketplace_value ?? ''}</td>
                  </tr>`;
                })}
              </tbody>
            </table>
          </div>`
        : html`<p>None.</p>`
    }`;
}
