import type { FastifyReply } from 'fastify';
import { setAlertDestination } from '../../../commands/alert/execute.js';
import { aggregateStream } from '../../../commands/shared/handler.js';
import { alertDecider } from '../../../domain/alert/decide.js';
import type { AlertDestination } from '../../../domain/alert/events.js';
import { credentialsOf } from '../../../identity/credentials.js';
import { listWebhooks } from '../../../projections/webhook/queries.js';
import { html, type Html } from '../../page.js';
import { backTo, notFound, refusedForm, type Handler, type Seller, type SettingsDeps } from './context.js';
import { postForm, problemsOf, selectField, type Problems } from './fields.js';

// Where each account's alerts go (docs/decisions/160-alerts.md): off, one of its webhooks, or the
// seller's own email address (named by their user id; the address is read when one is sent).

const valueOf = (d: AlertDestination | null): string =>
  d === null ? 'off' : d.kind === 'email' ? 'email' : `webhook:${d.webhook}`;

async function destinationForm(
  reply: FastifyReply,
  seller: Seller,
  deps: SettingsDeps,
  account: { id: string; name: string },
  chosen: string,
  problems: Problems = {},
): Promise<Html> {
  const email = (await credentialsOf(deps.db, seller.userId))?.email;
  const webhooks = await listWebhooks(deps.db, account.id);
  const form = `account-${account.id}-alerts`;
  return postForm(
    reply,
    { id: form, action: '/console/settings/alerts/destination', hidden: { account: account.id }, submit: 'Save' },
    selectField({
      form,
      problems,
      name: 'destination',
      label: `Alerts of ${account.name} go to`,
      options: [
        { value: 'off', text: 'Nowhere (alerts off)' },
        ...(email ? [{ value: 'email', text: `My email address (${email})` }] : []),
        ...webhooks.map((w) => ({ value: `webhook:${w.name}`, text: `The webhook ${w.name}` })),
      ],
      value: chosen,
      hint: 'An authorization the marketplace revoked, a failed event subscription, receipts left uncertain, an automation failing run after run.',
    }),
  );
}

const currentOf = async (seller: Seller, account_id: string) =>
  (await aggregateStream(seller.ctx.store, alertDecider, account_id)).state.destination;

export async function alertsSection(reply: FastifyReply, seller: Seller, deps: SettingsDeps): Promise<Html> {
  if (seller.accounts.length === 0) return html`<p>Alerts belong to a marketplace account: connect one first.</p>`;
  const forms = await Promise.all(
    seller.accounts.map(async (a) => destinationForm(reply, seller, deps, a, valueOf(await currentOf(seller, a.id)))),
  );
  return html`${forms}`;
}

export const alertPosts = (deps: SettingsDeps): Record<string, Handler> => ({
  async destination(reply, seller, f) {
    const account = seller.accounts.find((a) => a.id === f.account);
    if (!account) return notFound('That account is not one of yours.');
    const chosen = f.destination ?? '';
    const destination: AlertDestination | null | undefined =
      chosen === 'off'
        ? null
        : chosen === 'email'
          ? { kind: 'email', user_id: seller.userId }
          : chosen.startsWith('webhook:') && chosen.length > 'webhook:'.length
            ? { kind: 'webhook', webhook: chosen.slice('webhook:'.length) }
            : undefined;
    const refused = async (problems: Problems) =>
      refusedForm('Alerts', await destinationForm(reply, seller, deps, account, chosen, problems));
    if (destination === undefined) return refused({ destination: 'Choose off, your email address or a webhook.' });
    try {
      await setAlertDestination(seller.ctx, {
        account_id: account.id,
        destination,
        by: seller.userId,
        at: (deps.now ?? (() => new Date()))().toISOString(),
      });
    } catch (err) {
      const problem = problemsOf(err, ['webhook']).webhook;
      return refused({ destination: problem });
    }
    return backTo('alerts', 'alerts');
  },
});
