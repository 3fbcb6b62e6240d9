import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import { newId } from '../../domain/shared/ids.js';
import type { ToolServices } from '../../mcp/tool.js';
import { revertMutationsTool } from '../../mcp/tools/revert_mutations.js';
import { csrfField, html, page, sendPage as send, type Html, type PageOptions } from '../page.js';
import { csrfToken, verifyCsrf, type WebApp, type WebHook } from '../session.js';
import { pageContext } from './automations/calls.js';
import { outcomeOf } from './reads.js';
import { failureText, FORM_STYLE } from './automations/form.js';
import { receiptPath } from './links.js';
import type { ConsoleReader } from './reads.js';

// Reverting receipts from Activity (revert_mutations, an extension beyond the spec): the receipts
// selected on Activity or a receipt's page are posted to `<activity>/revert`, which answers the
// tool's dry run (what each revert would queue, what is left alone and why, a conflict's current
// value); its confirm form posts the same receipts to `<activity>/revert/confirm` with an
// idempotency key made for that form, so a form sent twice queues once.

type Item = {
  receipt_id: string;
  target_type: string;
  target_id: string;
  action: string;
  result: string;
  detail: string | null;
  revert: { action: string; payload: Record<string, unknown> } | null;
  receipt: { id: string; status: string } | null;
  current?: unknown;
  error?: { code: string; detail: string };
};
type Answer = { dry_run: boolean; items: Item[]; queued: number; left_alone: number; replayed?: boolean };

export interface RevertPlace {
  activity: string;
  reader: (req: FastifyRequest) => Promise<ConsoleReader>;
  services: ToolServices;
  layout: (req: FastifyRequest, title: string, notice?: string) => Promise<PageOptions>;
  preHandler: WebHook;
}

/** The receipts a form selected: the `receipt_ids` fields, one or many. */
const selected = (body: unknown): string[] => {
  const v = (body as Record<string, unknown> | undefined)?.receipt_ids;
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string => typeof x === 'string');
};

/** A hidden field per selected receipt. */
const receiptFields = (ids: readonly string[]): Html[] =>
  ids.map((id) => html`<input type="hidden" name="receipt_ids" value="${id}" />`);

/** The form Activity's checkboxes (`form="revert"`) and a receipt's page post their receipts with. */
export const revertForm = (activity: string, token: string, receiptIds: readonly string[] = []): Html =>
  html`<form id="revert" method="post" action="${activity}/revert" class="inline">
    ${csrfField(token)} ${receiptFields(receiptIds)}
    <button type="submit">${receiptIds.length === 1 ? 'Revert this change…' : 'Revert the selected changes…'}</button>
  </form>`;

function itemsList(activity: string, items: readonly Item[]): Html {
  const json = (v: unknown) => html`<pre>${JSON.stringify(v, null, 2)}</pre>`;
  return html`<ol class="timeline reverts">
    ${items.map(
      (i) =>
        html`<li>
          <h2>
            <a href="${receiptPath(activity, i.receipt_id)}">Receipt ${i.receipt_id}</a> ·
            <span class="status">${i.result}</span>
          </h2>
          <p>${i.action} on ${i.target_type} ${i.target_id}</p>
          ${i.detail ? html`<p>${i.detail}</p>` : ''} ${i.error ? html`<p>${failureText(i.error)}</p>` : ''}
          ${
            i.current === undefined
              ? ''
              : html`<details>
                  <summary>What the target shows now</summary>
                  ${json(i.current)}
                </details>`
          }
          ${
            i.revert
              ? html`<details>
                  <summary>The change that undoes it (${i.revert.action})</summary>
                  ${json(i.revert.payload)}
                </details>`
              : ''
          }
          ${
            i.receipt
              ? html`<p>
                  Its revert: <a href="${receiptPath(activity, i.receipt.id)}">receipt ${i.receipt.id}</a>
                  (${i.receipt.status})
                </p>`
              : ''
          }
        </li>`,
    )}
  </ol>`;
}

export function registerRevertPages(app: WebApp, db: Knex, now: () => Date, place: RevertPlace): void {
  const { activity } = place;
  const writing = { preHandler: [place.preHandler, verifyCsrf] };
  const ctxOf = async (req: FastifyRequest) => pageContext(req, db, await place.reader(req), now, place.services);
  const answer = async (req: FastifyRequest, reply: FastifyReply, title: string, body: Html, status = 200) =>
    send(reply, page({ ...(await place.layout(req, title)), style: FORM_STYLE }, body), status);
  const refused = async (req: FastifyRequest, reply: FastifyReply, why: string, ids: readonly string[]) =>
    send(
      reply,
      page(
        { ...(await place.layout(req, 'Revert changes', why)), style: FORM_STYLE },
        html`<p>${ids.length ? html`${ids.length} receipt${ids.length === 1 ? '' : 's'} selected.` : ''}</p>
          <p><a href="${activity}?kind=receipt">Back to the receipts</a></p>`,
      ),
      400,
    );

  // the dry run: what would be queued, what is left alone and why
  app.post(`${activity}/revert`, writing, async (req, reply) => {
    const ids = selected(req.body);
    if (ids.length === 0) return refused(req, reply, 'Select at least one receipt to revert.', ids);
    const out = await outcomeOf<Answer>(revertMutationsTool, { receipt_ids: ids, dry_run: true }, await ctxOf(req));
    if (!out.ok) return refused(req, reply, failureText(out.error), ids);
    const { items } = out.answer;
    const would = items.filter((i) => i.result === 'would_queue').length;
    const conflicts = items.filter((i) => i.result === 'conflict' || i.result === 'unverified').length;
    return answer(
      req,
      reply,
      'Revert changes',
      html`<p>
          ${would} of ${items.length} change${items.length === 1 ? '' : 's'} would be reverted: each revert is queued
          like any change, through the block flags and Automation switches, as a receipt of its own.
        </p>
        ${itemsList(activity, items)}
        ${
          would + conflicts > 0
            ? html`<form method="post" action="${activity}/revert/confirm">
                ${csrfField(csrfToken(reply))} ${receiptFields(ids)}
                <input type="hidden" name="idempotency_key" value="${newId()}" />
                ${
                  conflicts
                    ? html`<p class="choice">
                        <input type="checkbox" id="overwrite" name="overwrite" value="yes" />
                        <label for="overwrite"
                          >Revert even where the target changed since, or could not be read (${conflicts})</label
                        >
                      </p>`
                    : ''
                }
                <button type="submit">Revert</button>
                <a href="${activity}?kind=receipt">Cancel</a>
              </form>`
            : html`<p>Nothing here can be reverted. <a href="${activity}?kind=receipt">Back to the receipts</a></p>`
        }`,
    );
  });

  app.post(`${activity}/revert/confirm`, writing, async (req, reply) => {
    const ids = selected(req.body);
    const fields = (req.body ?? {}) as Record<string, unknown>;
    if (ids.length === 0) return refused(req, reply, 'Select at least one receipt to revert.', ids);
    const out = await outcomeOf<Answer>(
      revertMutationsTool,
      {
        receipt_ids: ids,
        overwrite: fields.overwrite === 'yes',
        ...(typeof fields.idempotency_key === 'string' ? { idempotency_key: fields.idempotency_key } : {}),
      },
      await ctxOf(req),
    );
    if (!out.ok) return refused(req, reply, failureText(out.error), ids);
    const { items, queued, replayed } = out.answer;
    return answer(
      req,
      reply,
      'Changes reverted',
      html`<p role="status">
          ${queued} revert${queued === 1 ? '' : 's'}
          queued${replayed ? ' (this form was sent before: the same reverts)' : ''}; ${items.length - queued} left
          alone.
        </p>
        ${itemsList(activity, items)}
        <p><a href="${activity}?kind=receipt">Back to the receipts</a></p>`,
    );
  });
}
