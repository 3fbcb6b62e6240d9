import type { FastifyReply } from 'fastify';
import {
  configureWebhook,
  removeWebhook,
  rotateWebhookSecret,
  setWebhookEnabled,
  updateWebhook,
} from '../../../commands/webhook/settings.js';
import { DomainError } from '../../../domain/shared/errors.js';
import { WebhookKind, type WebhookHeaders } from '../../../domain/webhook/events.js';
import { headersFromLines, MAX_NAME_LENGTH, MAX_URL_LENGTH } from '../../../domain/webhook/rules.js';
import { listWebhooks, type WebhookRow } from '../../../projections/webhook/queries.js';
import { html, type FormFields, type Html } from '../../page.js';
import { backTo, notFound, refusedForm, type Answer, type Handler, type Seller, type SettingsDeps } from './context.js';
import {
  confirmBox,
  postForm,
  problemsOf,
  selectField,
  textArea,
  textField,
  unconfirmed,
  type Problems,
} from './fields.js';
import { sendTestForm } from './send-test.js';

// Webhooks of each account the seller owns (spec 2.13, 4.13): the same commands as
// `npm run cli -- webhook …`. A signing secret is shown once, on the page that answers adding or
// rotating; header values are never shown back (only their names).

export const WEBHOOKS_PATH = '/console/settings/webhooks';
const KINDS = [
  { value: 'json', text: 'JSON (the payload as posted)' },
  { value: 'chat', text: 'Chat (a { "text": … } message)' },
];

/** The account named by the form, if it is the seller's. */
export const ownAccount = (seller: Seller, id: string | undefined) => seller.accounts.find((a) => a.id === id);

function secretPage(title: string, name: string, secret: string): Answer {
  return {
    title,
    body: html`<p>
        The signing secret of <strong>${name}</strong>. Copy it now: it is shown this once and never again (rotate it to
        get a new one).
      </p>
      <p class="secret"><code>${secret}</code></p>
      <p><a href="/console/settings#webhooks">Back to Settings</a></p>`,
  };
}

/** The form's fields checked the way the page can before the commands check the rest. */
function settingsOf(f: FormFields, problems: Problems, editing: boolean) {
  const name = (f.name ?? '').trim();
  const url = (f.url ?? '').trim();
  if (!name) problems.name = 'Enter a name, such as alerts: automations post with context.webhooks.<name>.';
  if (!url) problems.url = "Enter the receiver's https URL.";
  const kind = WebhookKind.safeParse(f.type);
  if (!kind.success) problems.type = 'Choose JSON or Chat.';
  let headers: WebhookHeaders | undefined;
  const lines = (f.headers ?? '').split(/\r?\n/);
  try {
    const given = headersFromLines(lines);
    headers = editing && Object.keys(given).length === 0 && f.clear_headers !== 'yes' ? undefined : given;
  } catch (err) {
    Object.assign(problems, problemsOf(err, ['headers']));
  }
  return { name, url, kind: kind.data, headers };
}

function settingsFields(form: string, f: FormFields, problems: Problems, headerNames?: readonly string[]): Html {
  const common = { form, problems };
  return html`${textField({
    ...common,
    name: 'name',
    label: 'Name',
    value: f.name ?? '',
    required: true,
    max: MAX_NAME_LENGTH,
    hint: 'Letters, digits and _ (a JavaScript name): automations post with context.webhooks.<name>.post(…).',
  })}${textField({
    ...common,
    name: 'url',
    label: 'URL',
    type: 'url',
    value: f.url ?? '',
    required: true,
    max: MAX_URL_LENGTH,
    hint: 'https (plain http and private addresses only where the operator allows private networks, for local receivers).',
  })}${selectField({ ...common, name: 'type', label: 'Type', options: KINDS, value: f.type ?? 'json' })}${textArea({
    ...common,
    name: 'headers',
    label: 'Headers',
    hint: headerNames
      ? `One per line, as Name: value. Leave empty to keep the current ones${
          headerNames.length ? ` (${[...headerNames].sort().join(', ')})` : ' (none)'
        }. Values are never shown again.`
      : 'Optional, one per line, as Name: value (e.g. Authorization: Bearer …). Values are never shown again.',
  })}`;
}

export function addForm(reply: FastifyReply, seller: Seller, f: FormFields = {}, problems: Problems = {}): Html {
  const form = 'webhook-add';
  return postForm(
    reply,
    { id: form, action: `${WEBHOOKS_PATH}/add`, submit: 'Add webhook' },
    html`${selectField({
      form,
      problems,
      name: 'account',
      label: 'Account',
      options: seller.accounts.map((a) => ({ value: a.id, text: a.name })),
      value: f.account,
    })}${settingsFields(form, f, problems)}`,
  );
}

export function editForm(reply: FastifyReply, account: string, w: WebhookRow, f?: FormFields, problems: Problems = {}) {
  const form = 'webhook-edit';
  const values = f ?? { name: w.name, url: w.url, type: w.kind };
  return postForm(
    reply,
    { id: form, action: `${WEBHOOKS_PATH}/edit`, hidden: { account, webhook: w.name }, submit: 'Save' },
    html`${settingsFields(form, values, problems, w.header_names)}
      <label class="check" for="${form}-clear_headers"
        ><input id="${form}-clear_headers" name="clear_headers" type="checkbox" value="yes" /> Remove every
        header</label
      >`,
  );
}

const confirmForm = (
  reply: FastifyReply,
  o: { account: string; webhook: string; what: 'rotate' | 'remove'; id: string },
  problems: Problems = {},
) =>
  postForm(
    reply,
    {
      id: o.id,
      action: `${WEBHOOKS_PATH}/${o.what}`,
      hidden: { account: o.account, webhook: o.webhook },
      submit: o.what === 'rotate' ? 'Rotate signing secret' : 'Remove webhook',
    },
    confirmBox({
      form: o.id,
      problems,
      label:
        o.what === 'rotate'
          ? `Yes, rotate: the current secret of ${o.webhook} stops verifying from the next delivery on`
          : `Yes, remove ${o.webhook}: automations can no longer post to it`,
    }),
  );

function webhookItem(reply: FastifyReply, account: string, w: WebhookRow): Html {
  const id = `webhook-${w.webhook_id}`;
  const hidden = { account, webhook: w.name };
  const edit = `${WEBHOOKS_PATH}/edit?${new URLSearchParams({ account, webhook: w.name })}`;
  return html`<li id="${id}">
    <h4>${w.name}</h4>
    <p>
      ${w.enabled ? 'Enabled' : 'Disabled'} · ${w.kind === 'chat' ? 'Chat' : 'JSON'} · <code>${w.url}</code> ·
      ${w.header_names.length ? `headers: ${[...w.header_names].sort().join(', ')} (values hidden)` : 'no headers'}
    </p>
    <p><a href="${edit}">Edit ${w.name}</a></p>
    ${postForm(reply, {
      id: `${id}-enabled`,
      action: `${WEBHOOKS_PATH}/enabled`,
      hidden: { ...hidden, enabled: w.enabled ? 'no' : 'yes' },
      submit: w.enabled ? `Disable ${w.name}` : `Enable ${w.name}`,
    })}
    ${sendTestForm(reply, account, w.name, `${id}-test`)}
    <details>
      <summary>Rotate the signing secret or remove</summary>
      ${confirmForm(reply, { account, webhook: w.name, what: 'rotate', id: `${id}-rotate` })}
      ${confirmForm(reply, { account, webhook: w.name, what: 'remove', id: `${id}-remove` })}
    </details>
  </li>`;
}

export async function webhooksSection(reply: FastifyReply, seller: Seller, deps: SettingsDeps): Promise<Html> {
  if (seller.accounts.length === 0)
    return html`<p>Webhooks belong to a marketplace account: connect one first (below).</p>`;
  const accounts = await Promise.all(
    seller.accounts.map(async (a) => ({ account: a, webhooks: await listWebhooks(deps.db, a.id) })),
  );
  return html`${accounts.map(
      ({ account, webhooks }) =>
        html`<h3>${account.name}</h3>
          ${
            webhooks.length
              ? html`<ul class="timeline">
                  ${webhooks.map((w) => webhookItem(reply, account.id, w))}
                </ul>`
              : html`<p>No webhooks yet.</p>`
          }`,
    )}
    <h3>Add a webhook</h3>
    ${addForm(reply, seller)}`;
}

/** The webhook a form names, as the read model has it, if the account is the seller's. */
async function named(deps: SettingsDeps, seller: Seller, f: FormFields) {
  const account = ownAccount(seller, f.account);
  if (!account) return null;
  const webhook = (await listWebhooks(deps.db, account.id)).find((w) => w.name === f.webhook);
  return webhook ? { account: account.id, webhook } : null;
}
const noSuchWebhook = (f: FormFields) => notFound(`You have no webhook named "${f.webhook ?? ''}" on that account.`);

export const webhookPosts = (deps: SettingsDeps): Record<string, Handler> => {
  /** A destructive action on the named webhook, once its box is ticked. */
  async function confirmed(
    reply: FastifyReply,
    seller: Seller,
    f: FormFields,
    what: 'rotate' | 'remove',
    act: (account: string, name: string) => Promise<Answer>,
  ): Promise<Answer> {
    const found = await named(deps, seller, f);
    if (!found) return noSuchWebhook(f);
    const problems = unconfirmed(f);
    if (!problems) return act(found.account, found.webhook.name);
    const form = confirmForm(reply, { account: found.account, webhook: found.webhook.name, what, id: what }, problems);
    return refusedForm(what === 'rotate' ? 'Rotate signing secret' : 'Remove webhook', form);
  }

  return {
    async add(reply, seller, f) {
      const problems: Problems = {};
      if (!ownAccount(seller, f.account)) problems.account = 'Choose one of your accounts.';
      const s = settingsOf(f, problems, false);
      const refused = () => refusedForm('Add a webhook', addForm(reply, seller, { ...f, headers: '' }, problems));
      if (Object.keys(problems).length) return refused();
      try {
        const added = await configureWebhook(seller.webhookCall, {
          account_id: f.account!,
          name: s.name,
          url: s.url,
          headers: s.headers ?? {},
          kind: s.kind!,
        });
        return secretPage('Webhook added', s.name, added.secret);
      } catch (err) {
        Object.assign(problems, problemsOf(err, ['name', 'url', 'headers']));
        return refused();
      }
    },

    async edit(reply, seller, f) {
      const found = await named(deps, seller, f);
      if (!found) return noSuchWebhook(f);
      const problems: Problems = {};
      const s = settingsOf(f, problems, true);
      const refused = () =>
        refusedForm('Edit webhook', editForm(reply, found.account, found.webhook, { ...f, headers: '' }, problems));
      if (Object.keys(problems).length) return refused();
      try {
        await updateWebhook(seller.webhookCall, found.account, found.webhook.name, {
          name: s.name,
          url: s.url,
          kind: s.kind!,
          ...(s.headers ? { headers: s.headers } : {}),
        });
      } catch (err) {
        if (err instanceof DomainError && err.code === 'not_found') return noSuchWebhook(f);
        Object.assign(problems, problemsOf(err, ['name', 'url', 'headers']));
        return refused();
      }
      return backTo('webhooks', 'saved');
    },

    async enabled(_reply, seller, f) {
      const found = await named(deps, seller, f);
      if (!found) return noSuchWebhook(f);
      const enable = f.enabled === 'yes';
      await setWebhookEnabled(seller.webhookCall, found.account, found.webhook.name, enable);
      return backTo('webhooks', enable ? 'enabled' : 'disabled');
    },

    rotate: (reply, seller, f) =>
      confirmed(reply, seller, f, 'rotate', async (account, name) => {
        const { secret } = await rotateWebhookSecret(seller.webhookCall, account, name);
        return secretPage('Signing secret rotated', name, secret);
      }),

    remove: (reply, seller, f) =>
      confirmed(reply, seller, f, 'remove', async (account, name) => {
        await removeWebhook(seller.webhookCall, account, name);
        return backTo('webhooks', 'removed');
      }),
  };
};

/** GET …/edit?account=&webhook=: the edit form of one webhook. */
export async function editPage(
  reply: FastifyReply,
  seller: Seller,
  deps: SettingsDeps,
  q: FormFields,
): Promise<Answer> {
  const found = await named(deps, seller, q);
  if (!found) return noSuchWebhook(q);
  return { title: `Edit ${found.webhook.name}`, body: editForm(reply, found.account, found.webhook) };
}
