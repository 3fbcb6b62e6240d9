import { html, type Html } from '../../page.js';
import { timeOf } from '../format.js';
import { versionDiff } from './diff.js';
import { buttonForm } from './form.js';
import { highlighted } from './highlight.js';
import { subscriptionText, type AutomationListed } from './list.js';

// An automation's page: what it is, what can be done to it, its code highlighted, and its version
// history as a diff between two versions (a GET form picks them).

/** get_automation's answer. */
export interface AutomationRead extends AutomationListed {
  account_id: string;
  code: string;
  created_at: string;
  created_by: string;
  source_automation_id: string | null;
  versions: Array<{ version: number; at: string; by: string }>;
}

export interface Comparison {
  from: { version: number; code: string };
  to: { version: number; code: string };
}

/** Which versions to compare: those asked for, else the current one against the one before it. */
export function comparedVersions(
  a: AutomationRead,
  q: Record<string, unknown>,
): { from: number; to: number } | { problem: string } | null {
  const numbers = a.versions.map((v) => v.version);
  if (numbers.length < 2 && q.from === undefined) return null;
  const pick = (name: 'from' | 'to', fallback: number | undefined) => {
    if (q[name] === undefined || q[name] === '') return fallback;
    const n = Number(q[name]);
    return numbers.includes(n) ? n : null;
  };
  const to = pick('to', a.version);
  const from = pick('from', numbers.filter((n) => n < (to ?? a.version)).at(-1));
  if (to === null || from === null || to === undefined || from === undefined)
    return { problem: `Compare two of its versions: ${numbers.join(', ')}.` };
  return { from, to };
}

export interface AutomationPageParts {
  a: AutomationRead;
  path: string;
  activity: string;
  /** absent on the demo's read-only pages */
  write?: { token: string; dryRun: Html; backtest: Html };
  comparison: Comparison | null;
}

export function automationBody({ a, path, activity, write, comparison }: AutomationPageParts): Html {
  const here = `${path}/${a.id}`;
  const options = (selected: number) =>
    a.versions.map(
      (x) => html`<option value="${x.version}" ${x.version === selected ? html`selected` : ''}>${x.version}</option>`,
    );
  return html`<dl class="facts">
      <dt>State</dt>
      <dd><span class="state state-${a.state}">${a.state}</span></dd>
      <dt>Event type</dt>
      <dd>${a.stream_type}</dd>
      <dt>Subscription</dt>
      <dd>${subscriptionText(a.subscription)}</dd>
      <dt>Account</dt>
      <dd>${a.account_name ?? a.account_id}</dd>
      <dt>Version</dt>
      <dd>${a.version}</dd>
      <dt>Id</dt>
      <dd>${a.id}</dd>
    </dl>
    <p>
      <a href="${activity}?kind=action&amp;automation=${a.id}">Its actions in Activity</a>
      ${write ? html` · <a href="${here}/flags">Listing blocks and campaign switches</a>` : ''}
    </p>
    ${
      write && a.state !== 'archived'
        ? html`<div class="actions">
            ${
              a.state === 'draft'
                ? buttonForm(`${here}/activate`, write.token, 'Activate')
                : buttonForm(`${here}/deactivate`, write.token, 'Deactivate…')
            }
            ${buttonForm(`${here}/duplicate`, write.token, 'Duplicate')}
            ${buttonForm(`${here}/archive`, write.token, 'Archive…')}
          </div>`
        : ''
    }
    <h2>Code</h2>
    ${highlighted(a.code, `The code of version ${a.version}`)}
    <h2>Version history</h2>
    <ol class="versions">
      ${a.versions.map((v) => html`<li value="${v.version}">Version ${v.version}, saved ${timeOf(v.at)} by ${v.by}</li>`)}
    </ol>
    ${
      comparison
        ? html`<form method="get" action="${here}" class="filters">
              <div>
                <label for="from">Compare version</label>
                <select id="from" name="from">
                  ${options(comparison.from.version)}
                </select>
              </div>
              <div>
                <label for="to">with version</label>
                <select id="to" name="to">
                  ${options(comparison.to.version)}
                </select>
              </div>
              <button type="submit">Compare</button>
            </form>
            ${versionDiff(comparison.from, comparison.to)}`
        : html`<p>One version so far: nothing to compare.</p>`
    }
    ${write ? html`${write.dryRun} ${write.backtest}` : ''}`;
}
