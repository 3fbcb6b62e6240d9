import type { FastifyReply } from 'fastify';
import { firstAttempt, type FirstAttempt } from '../../../commands/webhook/first-attempt.js';
import { sendTestWebhook } from '../../../commands/webhook/posts.js';
import { DomainError } from '../../../domain/shared/errors.js';
import { html, type FormFields } from '../../page.js';
import { SELLER_CONSOLE } from '../routes.js';
import { notFound, type Answer, type Seller, type SettingsDeps } from './context.js';
import { postForm } from './fields.js';

// "Send test" (spec 4.13): the fixed test payload through the delivery workers, as the CLI's
// `webhook test` sends it; the answer page waits, bounded, for the first attempt and shows what
// the receiver answered, with a link to the delivery in Activity.

/** The CLI's wait: a worker that is running takes a delivery within a second or two. */
const FIRST_ATTEMPT_WAIT_MS = 30_000;

export const sendTestForm = (reply: FastifyReply, account: string, webhook: string, id: string) =>
  postForm(reply, {
    id,
    action: '/console/settings/webhooks/test',
    hidden: { account, webhook },
    submit: `Send test to ${webhook}`,
  });

function outcome(first: FirstAttempt, waitedMs: number) {
  switch (first.kind) {
    case 'cancelled':
      return html`<p>The delivery was cancelled before any attempt: ${first.reason}.</p>`;
    case 'queued':
      return html`<p>
        No delivery worker tried it within ${waitedMs / 1000} s: it stays queued and goes out when a worker runs.
      </p>`;
    case 'attempt': {
      const a = first.attempt;
      return html`<dl>
        <dt>Answer</dt>
        <dd>${a.status === null ? 'none' : `HTTP ${a.status}`}</dd>
        <dt>Duration</dt>
        <dd>${a.duration_ms} ms</dd>
        <dt>Outcome</dt>
        <dd>
          ${a.outcome}${a.outcome === 'retry' && a.next_attempt_at ? `, next attempt at ${a.next_attempt_at}` : ''}
        </dd>
        ${
          a.error
            ? html`<dt>Error</dt>
                <dd>${a.error}</dd>`
            : ''
        }
        <dt>Response body (first 10 KB)</dt>
        <dd>${a.response ? html`<pre>${a.response}</pre>` : '(empty)'}</dd>
      </dl>`;
    }
  }
}

export async function sendTest(
  reply: FastifyReply,
  seller: Seller,
  deps: SettingsDeps,
  f: FormFields,
): Promise<Answer> {
  const account = seller.accounts.find((a) => a.id === f.account);
  const name = f.webhook ?? '';
  if (!account) return notFound('That account is not one of yours.');
  let delivery_id: string;
  try {
    ({ delivery_id } = await sendTestWebhook(
      {
        store: seller.webhookCall.store,
        notifier: deps.notifier,
        logger: reply.log,
        ...(deps.now ? { now: deps.now } : {}),
      },
      { accountId: account.id, name, by: seller.userId },
    ));
  } catch (err) {
    if (err instanceof DomainError && err.code === 'not_found')
      return notFound(`You have no webhook named "${name}" on that account.`);
    throw err;
  }
  const wait = deps.firstAttemptWaitMs ?? FIRST_ATTEMPT_WAIT_MS;
  const first = await firstAttempt(deps.store, delivery_id, wait);
  const activity = `${SELLER_CONSOLE.activity}?${new URLSearchParams({ kind: 'delivery' })}#item-${delivery_id}`;
  return {
    title: `Test sent to ${name}`,
    body: html`<p>Delivery <code>${delivery_id}</code> of the test payload to <strong>${name}</strong>.</p>
      ${outcome(first, wait)}
      <p>
        <a href="${activity}">This delivery in Activity</a> · <a href="/console/settings#webhooks">Back to Settings</a>
      </p>`,
  };
}
