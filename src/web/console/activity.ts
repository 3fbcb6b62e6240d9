import { TARGET_TYPES } from '../../domain/mutation/payloads.js';
import type { DeliveryCause } from '../../domain/webhook/events.js';
import { UUID_PATTERN } from '../../domain/shared/ids.js';
import { decodeKeyset, encodeKeyset, type Keyset } from '../../projections/keyset.js';
import type { AccountView } from '../../projections/accounts/queries.js';
import { html, type Html } from '../page.js';
import { timeOf } from './format.js';
import { revertForm } from './revert.js';
import { eventPath, filterLink, receiptPath } from './links.js';
import { KINDS, STATUSES_OF, type Item, type Kind, type TimelineFilter } from './timeline.js';

// The Activity page: the timeline's filters (a GET form: links to a filtered page can be shared),
// its items newest first, each linking to what caused it, and a link to the next page.

export const PAGE_SIZE = 25;
const MAX_PAGE_SIZE = 50;

const KIND_NAMES: Record<Kind, { one: string; all: string }> = {
  action: { one: 'Automation action', all: 'Automation actions' },
  receipt: { one: 'Mutation receipt', all: 'Mutation receipts' },
  delivery: { one: 'Webhook delivery', all: 'Webhook deliveries' },
  event: { one: 'Marketplace event', all: 'Marketplace events' },
};
const ALL_STATUSES = [...new Set(KINDS.flatMap((k) => STATUSES_OF[k]))];

type Query = Record<string, unknown>;
const text = (q: Query, name: string) =>
  typeof q[name] === 'string' && q[name] !== '' ? (q[name] as string) : undefined;

/** The filter a query string asks for, or what is wrong with it. */
export function filterOf(q: Query): TimelineFilter | { problem: string } {
  const account = text(q, 'account');
  const kind = text(q, 'kind');
  const status = text(q, 'status');
  const automation = text(q, 'automation');
  const targetType = text(q, 'target_type');
  const targetId = text(q, 'target_id');
  const cursor = text(q, 'cursor');
  const limit = Number(text(q, 'limit') ?? PAGE_SIZE);
  if (account && !UUID_PATTERN.test(account)) return { problem: 'The account is not an account id.' };
  if (kind && !(KINDS as readonly string[]).includes(kind)) return { problem: `There is no kind "${kind}".` };
  if (status && !ALL_STATUSES.includes(status)) return { problem: `There is no status "${status}".` };
  if (automation && !UUID_PATTERN.test(automation)) return { problem: 'The automation is not an automation id.' };
  if (targetType && !(TARGET_TYPES as readonly string[]).includes(targetType))
    return { problem: `There is no target type "${targetType}".` };
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE)
    return { problem: `A page shows 1 to ${MAX_PAGE_SIZE} items.` };
  const before = cursor === undefined ? undefined : decodeKeyset(cursor);
  if (before === null) return { problem: 'That page link is broken: start from the first page.' };
  return {
    ...(account ? { account: account.toLowerCase() } : {}),
    ...(kind ? { kind: kind as Kind } : {}),
    ...(status ? { status } : {}),
    ...(automation ? { automation: automation.toLowerCase() } : {}),
    ...(targetType && targetId
      ? { target: { type: targetType as (typeof TARGET_TYPES)[number], id: targetId.trim().toLowerCase() } }
      : {}),
    ...(before ? { before } : {}),
    limit,
  };
}

function itemBody(item: Item, path: string, selectable: boolean): Html {
  const automation = (id: string, version?: number) =>
    html`automation
      <a href="${filterLink(path, { kind: 'action', automation: id })}">${id}</a>${version ? ` v${version}` : ''}`;
  switch (item.kind) {
    case 'action': {
      const a = item.row;
      return html`<p>
          ${a.kind === 'warning' ? 'Warning' : `${a.action} on ${a.target_type} ${a.target_id}`}${a.value === null ? '' : `, value ${a.value}`}${a.sku ? `, SKU ${a.sku}` : ''}
        </p>
        ${a.error_message ? html`<p>${a.error_message}</p>` : ''}
        ${a.missing_fields ? html`<p>Missing event fields: ${a.missing_fields.join(', ')}</p>` : ''}
        <p>
          Decided by ${automation(a.automation_id, a.automation_version)} on
          <a href="${eventPath(path, a.event_id)}">event ${a.event_id}</a> (${a.stream_type}).
          ${a.receipt_id ? html`<a href="${receiptPath(path, a.receipt_id)}">Its receipt</a>` : ''}
        </p>`;
    }
    case 'receipt': {
      const r = item.row;
      const cause = r.caused_by;
      return html`<p>
          ${
            selectable
              ? html`<input
                  type="checkbox"
                  form="revert"
                  name="receipt_ids"
                  value="${r.id}"
                  id="revert-${r.id}"
                  aria-label="Select receipt ${r.id} to revert"
                />`
              : ''
          }
          <a href="${receiptPath(path, r.id)}">${r.action} on ${r.target_type} ${r.target_id}</a
          >${r.outcome ? `: ${r.outcome}` : ''}
        </p>
        ${r.error ? html`<p>${r.error.message}</p>` : ''}
        ${
          cause
            ? html`<p>
                ${
                  'reverts' in cause
                    ? html`Reverts <a href="${receiptPath(path, cause.reverts)}">receipt ${cause.reverts}</a>.`
                    : html`Admitted by
                      ${automation(cause.automation_id, cause.automation_version)}${cause.event_id ? html` on <a href="${eventPath(path, cause.event_id)}">event ${cause.event_id}</a>` : ''}.`
                }
              </p>`
            : ''
        }`;
    }
    case 'delivery': {
      const d = item.row;
      // the projection stores the requested event's cause as it came
      const cause = d.cause as DeliveryCause;
      return html`<p>
          To webhook ${d.webhook_name}${d.next_attempt_at ? html`, next attempt ${d.next_attempt_at}` : ''}
        </p>
        ${d.last_error ? html`<p>${d.last_error}</p>` : ''}
        ${
          d.attempts.length
            ? html`<ol class="attempts">
                ${d.attempts.map(
                  (a) =>
                    html`<li>
                      Attempt ${a.attempt} at ${timeOf(a.started_at)}:
                      ${a.status === null ? 'no answer' : `HTTP ${a.status}`}, ${a.duration_ms} ms,
                      ${a.outcome}${a.error ? ` (${a.error})` : ''}
                      ${a.response ? html`<pre>${a.response.slice(0, 500)}</pre>` : ''}
                    </li>`,
                )}
              </ol>`
            : html`<p>Not attempted yet.</p>`
        }
        <p>
          ${
            cause.kind === 'automation'
              ? html`Posted by ${automation(cause.automation_id, cause.automation_version)} on
                  <a href="${eventPath(path, cause.event_id)}">event ${cause.event_id}</a>.`
              : cause.kind === 'alert'
                ? `An alert (${cause.alert_kind.replaceAll('_', ' ')}).`
                : `A test delivery, sent by ${cause.by}.`
          }
        </p>`;
    }
    case 'event': {
      const e = item.row;
      return html`<p><a href="${eventPath(path, e.id)}">${e.summary}</a></p>
        <p>Account ${e.account_name}, received ${timeOf(e.received_at)}.</p>`;
    }
  }
}

export interface ActivityView {
  /** the reader's accounts, to filter by */
  accounts: AccountView[];
  filter: TimelineFilter;
  items: Item[];
  next: Keyset | null;
}

/** The Activity page's content; `path` is the page's own path. */
/** `revertToken`: the signed-in seller's CSRF token, to select receipts and revert them (revert.ts). */
export function activityBody(view: ActivityView, path: string, revertToken?: string): Html {
  const f = view.filter;
  const selectable = revertToken !== undefined && view.items.some((i) => i.kind === 'receipt');
  const option = (value: string, label: string, selected: boolean) =>
    html`<option value="${value}" ${selected ? html`selected` : ''}>${label}</option>`;
  const keep: Record<string, string> = {
    ...(f.account ? { account: f.account } : {}),
    ...(f.kind ? { kind: f.kind } : {}),
    ...(f.status ? { status: f.status } : {}),
    ...(f.automation ? { automation: f.automation } : {}),
    ...(f.target ? { target_type: f.target.type, target_id: f.target.id } : {}),
    ...(f.limit === PAGE_SIZE ? {} : { limit: String(f.limit) }),
  };
  return html`<form method="get" action="${path}" class="filters">
      ${
        view.accounts.length > 1
          ? html`<div>
              <label for="account">Account</label>
              <select id="account" name="account">
                ${option('', 'Every account', !f.account)}
                ${view.accounts.map((a) => option(a.id, a.name, f.account === a.id))}
              </select>
            </div>`
          : ''
      }
      <div>
        <label for="kind">Kind</label>
        <select id="kind" name="kind">
          ${option('', 'Everything', !f.kind)} ${KINDS.map((k) => option(k, KIND_NAMES[k].all, f.kind === k))}
        </select>
      </div>
      <div>
        <label for="status">Status</label>
        <select id="status" name="status">
          ${option('', 'Any', !f.status)} ${ALL_STATUSES.map((s) => option(s, s, f.status === s))}
        </select>
      </div>
      ${f.automation ? html`<input type="hidden" name="automation" value="${f.automation}" />` : ''}
      ${
        f.target
          ? html`<input type="hidden" name="target_type" value="${f.target.type}" /><input
                type="hidden"
                name="target_id"
                value="${f.target.id}"
              />`
          : ''
      }
      <button type="submit">Show</button>
    </form>
    ${f.automation ? html`<p>Only the actions of automation ${f.automation}. <a href="${path}">Show everything</a></p>` : ''}
    ${f.target ? html`<p>Only the receipts of ${f.target.type} ${f.target.id}. <a href="${path}">Show everything</a></p>` : ''}
    ${
      view.items.length
        ? html`<ol class="timeline">
            ${view.items.map(
              (item) =>
                html`<li id="item-${item.id}">
                  <h2>
                    ${KIND_NAMES[item.kind].one}${'status' in item.row && item.row.status ? html` · <span class="status">${item.row.status}</span>` : ''}
                  </h2>
                  <p>${timeOf(item.at, 'at')} · ${item.id}</p>
                  ${itemBody(item, path, selectable)}
                </li>`,
            )}
          </ol>`
        : html`<p>Nothing ${f.before ? 'more ' : ''}to show.</p>`
    }
    ${selectable ? revertForm(path, revertToken) : ''}
    <nav aria-label="Pages">
      ${f.before ? html`<a href="${filterLink(path, keep)}">Newest</a>` : ''}
      ${view.next ? html`<a href="${filterLink(path, { ...keep, cursor: encodeKeyset(view.next) })}" rel="next">Older</a>` : ''}
    </nav>`;
}
