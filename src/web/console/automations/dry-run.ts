import { csrfField, html, type Html } from '../../page.js';
import type { Outcome, ToolFailure } from '../reads.js';
import { described, errorBeside, failureText, type FieldErrors, type Fields } from './form.js';

// The dry-run panel: run_automation on the canned sample of the automation's event type, a
// recorded event by id, or a pasted JSON payload; it shows the `changes` the run would make, its
// `logs` and its `missing_field_reads` (spec 4.4), or what the tool refused and why.

const SOURCES = ['sample', 'event', 'json'] as const;
type Source = (typeof SOURCES)[number];

export interface DryRunForm {
  source: Source;
  event_id: string;
  sample_event: string;
  /** the listing to run for, when the event reached several */
  listing_id: string;
}

export interface DryRunAnswer {
  changes: Array<{
    status: string;
    target: { type: string; id: string | null } | null;
    action?: string | null;
    value: number | null;
    sku?: string;
    error_message?: string;
  }>;
  logs: Array<{ level: string; message: string }>;
  missing_field_reads: Array<{ path: string; available: string[] }>;
}

export const emptyDryRun: DryRunForm = { source: 'sample', event_id: '', sample_event: '', listing_id: '' };

/** The run_automation arguments the form asks for (besides automation_id), or what is wrong with it. */
export function dryRunArguments(
  f: Fields,
): { form: DryRunForm; args: Record<string, unknown> } | { form: DryRunForm; errors: FieldErrors } {
  const source = (SOURCES as readonly string[]).includes(f.source ?? '') ? (f.source as Source) : null;
  const form = {
    source: source ?? 'sample',
    event_id: f.event_id?.trim() ?? '',
    sample_event: f.sample_event ?? '',
    listing_id: f.listing_id?.trim() ?? '',
  };
  if (!source) return { form, errors: { source: 'Choose the sample, an event id or pasted JSON.' } };
  const listing = form.listing_id ? { listing_id: form.listing_id } : {};
  if (source === 'sample') return { form, args: listing };
  if (source === 'event')
    return form.event_id
      ? { form, args: { event_id: form.event_id, ...listing } }
      : { form, errors: { event_id: 'Enter the id of a recorded event (Activity names them).' } };
  let parsed: unknown;
  try {
    parsed = JSON.parse(form.sample_event);
  } catch (err) {
    return { form, errors: { sample_event: `This is not JSON: ${(err as Error).message}.` } };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return { form, errors: { sample_event: 'Paste one JSON object, { … }: the event payload.' } };
  return { form, args: { sample_event: parsed, ...listing } };
}

/** Where the page shows a tool's refusal: beside the field it names, else above the form. */
export function dryRunErrors(form: DryRunForm, e: ToolFailure): FieldErrors {
  const field =
    e.argument === 'event_id' || e.argument === 'sample_event' || e.argument === 'listing_id'
      ? e.argument
      : form.source === 'event'
        ? 'event_id'
        : form.source === 'json'
          ? 'sample_event'
          : '';
  return { [field]: failureText(e) };
}

export function dryRunPanel(
  action: string,
  token: string,
  form: DryRunForm,
  errors: FieldErrors,
  outcome: Outcome<DryRunAnswer> | null,
): Html {
  const radio = (value: Source, label: string) =>
    html`<div class="choice">
      <input
        type="radio"
        id="source-${value}"
        name="source"
        value="${value}"
        ${form.source === value ? html`checked` : ''}
      />
      <label for="source-${value}">${label}</label>
    </div>`;
  return html`<section aria-labelledby="dry-run" id="dry-run-panel">
    <h2 id="dry-run">Dry run</h2>
    <p>Runs the current code once: nothing is sent, posted or stored.</p>
    <form method="post" action="${action}#dry-run-panel">
      ${csrfField(token)}
      <fieldset ${described('source', errors)}>
        <legend>Event</legend>
        ${radio('sample', 'The canned sample of its event type')} ${radio('event', 'A recorded event, by id')}
        ${radio('json', 'A payload pasted as JSON')}
      </fieldset>
      ${errorBeside('source', errors)} ${errors[''] ? html`<p class="field-error" role="alert">${errors['']}</p>` : ''}
      <label for="event_id">Event id</label>
      <input type="text" id="event_id" name="event_id" value="${form.event_id}" ${described('event_id', errors)} />
      ${errorBeside('event_id', errors)}
      <label for="sample_event">Event payload (JSON)</label>
      <textarea id="sample_event" name="sample_event" rows="6" ${described('sample_event', errors)}>
${form.sample_event}</textarea>
      ${errorBeside('sample_event', errors)}
      <label for="listing_id">Listing id (only when the event reached several listings)</label>
      <input
        type="text"
        id="listing_id"
        name="listing_id"
        value="${form.listing_id}"
        ${described('listing_id', errors)}
      />
      ${errorBeside('listing_id', errors)}
      <button type="submit">Dry-run</button>
    </form>
    ${outcome ? dryRunResult(outcome) : ''}
  </section>`;
}

function dryRunResult(outcome: Outcome<DryRunAnswer>): Html {
  // a run that threw is an answer too: its message with the logs so far
  const run = outcome.ok
    ? outcome.answer
    : {
        changes: [],
        logs: (outcome.error.logs as DryRunAnswer['logs']) ?? [],
        missing_field_reads: (outcome.error.missing_field_reads as DryRunAnswer['missing_field_reads']) ?? [],
      };
  return html`<div id="dry-run-result">
    <h3>Result</h3>
    ${outcome.ok ? '' : html`<p class="field-error" role="alert">${failureText(outcome.error)}</p>`}
    <h4>Changes</h4>
    ${
      run.changes.length
        ? html`<div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Status</th>
                  <th scope="col">Action</th>
                  <th scope="col">Target</th>
                  <th scope="col">Value</th>
                  <th scope="col">Why</th>
                </tr>
              </thead>
              <tbody>
                ${run.changes.map(
                  (c) =>
                    html`<tr>
                      <td>${c.status}</td>
                      <td>${c.action ?? ''}</td>
                      <td>${c.target ? `${c.target.type} ${c.sku ?? c.target.id ?? ''}` : ''}</td>
                      <td>${c.value ?? ''}</td>
                      <td>${c.error_message ?? ''}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
        : html`<p>No changes.</p>`
    }
    <h4>Logs</h4>
    ${
      run.logs.length
        ? html`<pre class="logs">${run.logs.map((l) => `${l.level}: ${l.message}\n`)}</pre>`
        : html`<p>Nothing logged.</p>`
    }
    <h4>Missing field reads</h4>
    ${
      run.missing_field_reads.length
        ? html`<ul>
            ${run.missing_field_reads.map(
              (m) => html`<li><code>${m.path}</code>, available there: ${m.available.join(', ') || 'none'}</li>`,
            )}
          </ul>`
        : html`<p>None: every event key the code read was there.</p>`
    }
  </div>`;
}
