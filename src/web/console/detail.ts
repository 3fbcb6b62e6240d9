import type { DeliveryCause } from '../../domain/webhook/events.js';
import type { ToolContext } from '../../mcp/tool.js';
import { getEvent } from '../../mcp/tools/get_event.js';
import { getMutation } from '../../mcp/tools/get_mutation.js';
import { listAutomationActions, type ActionRow } from '../../projections/automation-runs/queries.js';
import type { z } from 'zod';
import type { ReceiptHistoryEntry, receiptSchema } from '../../projections/mutations/queries.js';
import { listDeliveries, type DeliveryRow } from '../../projections/webhook/queries.js';
import { html, type Html } from '../page.js';
import { timeOf } from './format.js';
import { eventPath, filterLink, receiptPath } from './links.js';
import { outcomeOf, type ToolFailure } from './reads.js';
import { revertForm } from './revert.js';

// The pages an Activity item links to: a receipt with its history and the marketplace's raw
// answers (get_mutation's answer), and an incoming event with its payload and what it caused: the
// runs' actions (each linking to its receipt) and the webhook deliveries posted on it.

/** the longest JSON a page shows of one value; the tool answers the whole */
const SHOWN_JSON = 20_000;
/** what an event page lists of what it caused */
const CAUSED_LIMIT = 50;

function json(value: unknown): Html {
  const text = JSON.stringify(value, null, 2) ?? 'null';
  return text.length > SHOWN_JSON
    ? html`<pre>${text.slice(0, SHOWN_JSON)}</pre>
        <p>
          Cut at ${SHOWN_JSON.toLocaleString('en')} characters of ${text.length.toLocaleString('en')}: get_mutation
          answers the whole.
        </p>`
    : html`<pre>${text}</pre>`;
}

const facts = (rows: Array<[string, Html | string | number | null | undefined]>) =>
  html`<dl class="facts">
    ${rows.map(
      ([k, v]) =>
        html`<dt>${k}</dt>
          <dd>${v === null || v === undefined || v === '' ? '—' : v}</dd>`,
    )}
  </dl>`;

type Receipt = z.infer<typeof receiptSchema> & { account_name: string; history: ReceiptHistoryEntry[] };

export type Detail<T> = { found: T } | { refused: ToolFailure };

export async function readReceipt(ctx: ToolContext, id: string): Promise<Detail<Receipt>> {
  const out = await outcomeOf<Receipt>(getMutation, { id }, ctx);
  return out.ok ? { found: out.answer } : { refused: out.error };
}

/** `revertToken`: the signed-in seller's CSRF token, for the form that reverts the receipt (revert.ts). */
export function receiptBody(r: Receipt, activity: string, revertToken?: string): Html {
  const cause = r.caused_by;
  const causeText: Html | string = !cause
    ? 'A tool call'
    : 'reverts' in cause
      ? html`The revert of <a href="${receiptPath(activity, cause.reverts)}">receipt ${cause.reverts}</a>`
      : html`Automation
          <a href="${filterLink(activity, { kind: 'action', automation: cause.automation_id })}"
            >${cause.automation_id}</a
          >
          v${cause.automation_version}${
            cause.event_id ? html` on <a href="${eventPath(activity, cause.event_id)}">event ${cause.event_id}</a>` : ''
          }`;
  const reconciliation = r.reconciliation && Object.keys(r.reconciliation).length > 0 ? r.reconciliation : null;
  return html`<h2>${r.action} on ${r.target_type} ${r.target_id}</h2>
    ${facts([
      ['Status', html`<span class="status">${r.status}</span>`],
      ['Outcome', r.outcome],
      ['Accepted', r.accepted === null ? 'not known yet' : r.accepted ? 'yes' : 'no'],
      ['HTTP status', r.http_status],
      ['Provider calls', r.attempts],
      ['Account', r.account_name],
      ['Admitted', timeOf(r.created_at)],
      ['Result recorded', timeOf(r.recorded_at)],
      ['Caused by', causeText],
      ['Request id', r.request_id],
      ['Submission id', r.submission_id],
      ['Created', r.created ? `${r.created.type} ${r.created.id} (${r.created.providerId})` : null],
      ['Error', r.error ? `${r.error.code ?? ''} ${r.error.message}`.trim() : null],
    ])}
    <p>
      <a href="${filterLink(activity, { kind: 'receipt', target_type: r.target_type, target_id: r.target_id })}"
        >Every receipt of this ${r.target_type}</a
      >
    </p>
    ${revertToken === undefined ? '' : revertForm(activity, revertToken, [r.id])}
    <h2>Payload</h2>
    ${json(r.payload)}
    <h2>The marketplace's answer</h2>
    ${r.response === null || r.response === undefined ? html`<p>None yet.</p>` : json(r.response)}
    ${
      reconciliation
        ? html`<h2>Reconciliation</h2>
            ${json(reconciliation)}`
        : ''
    }
    <h2>History</h2>
    <ol class="history">
      ${r.history.map(
        (e) =>
          html`<li>
            <strong>${e.type}</strong> · ${timeOf(e.recorded_at)} · revision ${e.revision}
            <details>
              <summary>The event as recorded</summary>
              ${json(e.data)}
            </details>
          </li>`,
      )}
    </ol>`;
}

type EventAnswer = {
  id: string;
  stream_type: string | null;
  synthetic: boolean;
  occurred_at: string;
  received_at: string;
  account_id: string;
  account_name: string;
  summary: string;
  listings: Array<{ id: string | null; asin: string | null; sku: string | null; marketplace_id: string | null }>;
  payload: Record<string, unknown>;
};

export interface EventView {
  event: EventAnswer;
  actions: ActionRow[];
  deliveries: DeliveryRow[];
}

export async function readEventView(ctx: ToolContext, id: string): Promise<Detail<EventView>> {
  const out = await outcomeOf<EventAnswer>(getEvent, { event_id: id }, ctx);
  if (!out.ok) return { refused: out.error };
  const event = out.answer;
  // get_event found it on one of the reader's accounts: what it caused is on that account
  const [{ rows: actions }, deliveries] = await Promise.all([
    listAutomationActions(ctx.db, { accountIds: [event.account_id], event_id: event.id, limit: CAUSED_LIMIT }),
    listDeliveries(ctx.db, event.account_id, { event_id: event.id, limit: CAUSED_LIMIT }),
  ]);
  return { found: { event, actions, deliveries } };
}

export function eventBody(v: EventView, activity: string): Html {
  const e = v.event;
  return html`<h2>${e.summary}</h2>
    ${facts([
      ['Type', e.stream_type ?? 'synthetic'],
      ['Occurred', timeOf(e.occurred_at)],
      ['Received', timeOf(e.received_at)],
      ['Account', e.account_name],
    ])}
    ${
      e.listings.some((l) => l.id)
        ? html`<p>
            ${e.listings
              .filter((l) => l.id)
              .map(
                (l) =>
                  html`<a href="${filterLink(activity, { kind: 'receipt', target_type: 'listing', target_id: l.id! })}"
                    >Receipts of SKU ${l.sku} in ${l.marketplace_id}</a
                  > `,
              )}
          </p>`
        : ''
    }
    <h2>What it caused</h2>
    ${
      v.actions.length
        ? html`<ul>
            ${v.actions.map(
              (a) =>
                html`<li>
                  ${a.kind === 'warning' ? 'A warning' : `${a.action} on ${a.target_type} ${a.target_id}`}:
                  <span class="status">${a.status ?? 'warning'}</span>, decided by automation
                  <a href="${filterLink(activity, { kind: 'action', automation: a.automation_id })}"
                    >${a.automation_id}</a
                  >
                  v${a.automation_version}${
                    a.receipt_id ? html` · <a href="${receiptPath(activity, a.receipt_id)}">its receipt</a>` : ''
                  }${a.error_message ? html` · ${a.error_message}` : ''}
                </li>`,
            )}
          </ul>`
        : html`<p>No automation decided anything on it.</p>`
    }
    ${
      v.deliveries.length
        ? html`<ul>
            ${v.deliveries.map(
              (d) =>
                html`<li>
                  Webhook ${d.webhook_name}: <span class="status">${d.status}</span>, ${d.attempts.length}
                  attempt${d.attempts.length === 1 ? '' : 's'}, posted by automation
                  ${(d.cause as DeliveryCause & { kind: 'automation' }).automation_id}
                </li>`,
            )}
          </ul>`
        : html`<p>No webhook delivery was posted on it.</p>`
    }
    <h2>Payload</h2>
    ${json(e.payload)}`;
}
