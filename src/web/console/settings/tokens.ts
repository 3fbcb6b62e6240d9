import type { FastifyReply } from 'fastify';
import { issueApiToken, revokeApiToken } from '../../../commands/user/execute.js';
import { PAT_SCOPES, SCOPES } from '../../../domain/user/scopes.js';
import { listTokens } from '../../../projections/auth/queries.js';
import { html, type FormFields, type Html } from '../../page.js';
import { backTo, notFound, refusedForm, type Handler, type Seller, type SettingsDeps } from './context.js';
import { confirmBox, postForm, selectField, textField, unconfirmed, type Problems } from './fields.js';

// Personal access tokens for /mcp (docs/decisions/100-scopes.md), as `npm run cli -- tokens …`
// issues them: the token is shown once, on the page that answers creating it; the list shows
// labels, scopes and dates, never a token.

const PATH = '/console/settings/tokens';
const MAX_LABEL = 100;
const SCOPE_OPTIONS = [
  { value: 'read', text: 'Read (mcp:read)' },
  { value: 'write', text: 'Read and write (mcp:read mcp:write)' },
];

const createForm = (reply: FastifyReply, f: FormFields = {}, problems: Problems = {}) =>
  postForm(
    reply,
    { id: 'token-create', action: `${PATH}/create`, submit: 'Create token' },
    html`${textField({
      form: 'token-create',
      problems,
      name: 'label',
      label: 'Label',
      value: f.label ?? '',
      required: true,
      max: MAX_LABEL,
      hint: 'Where you will use it, e.g. "laptop Claude Code".',
    })}${selectField({
      form: 'token-create',
      problems,
      name: 'scope',
      label: 'Scopes',
      options: SCOPE_OPTIONS,
      value: f.scope ?? 'read',
    })}`,
  );

const revokeForm = (reply: FastifyReply, token: { token_id: string; label: string }, problems: Problems = {}) => {
  const id = `token-${token.token_id}-revoke`;
  return postForm(
    reply,
    { id, action: `${PATH}/revoke`, hidden: { token: token.token_id }, submit: `Revoke ${token.label}` },
    confirmBox({ form: id, problems, label: `Yes, revoke "${token.label}": clients using it are refused at once` }),
  );
};

export async function tokensSection(reply: FastifyReply, seller: Seller, deps: SettingsDeps): Promise<Html> {
  const tokens = (await listTokens(deps.db, seller.userId)).filter((t) => !t.revoked_at);
  return html`${
      tokens.length
        ? html`<ul class="timeline">
            ${tokens.map(
              (t) =>
                html`<li>
                  <strong>${t.label}</strong> · ${(t.scopes ?? SCOPES).join(' ')} · created
                  <time datetime="${t.created_at.toISOString()}">${t.created_at.toISOString().slice(0, 10)}</time>
                  ${revokeForm(reply, t)}
                </li>`,
            )}
          </ul>`
        : html`<p>No personal access tokens.</p>`
    }
    <h3>Create a token</h3>
    ${createForm(reply)}`;
}

export const tokenPosts = (deps: SettingsDeps): Record<string, Handler> => ({
  async create(reply, seller, f) {
    const problems: Problems = {};
    const label = (f.label ?? '').trim();
    if (!label) problems.label = 'Enter a label, so that you know the token when you revoke it.';
    else if (label.length > MAX_LABEL) problems.label = `At most ${MAX_LABEL} characters.`;
    if (!Object.hasOwn(PAT_SCOPES, f.scope ?? '')) problems.scope = 'Choose read, or read and write.';
    if (Object.keys(problems).length) return refusedForm('Create a token', createForm(reply, f, problems));
    const scopes = PAT_SCOPES[f.scope as keyof typeof PAT_SCOPES];
    const { token } = await issueApiToken(seller.ctx, seller.userId, label, scopes);
    return {
      title: 'Token created',
      body: html`<p>
          The token <strong>${label}</strong> (${scopes.join(' ')}). Copy it now: it is shown this once and never again.
          Use it as <code>Authorization: Bearer …</code> with <code>/mcp</code>.
        </p>
        <p class="secret"><code>${token}</code></p>
        <p><a href="/console/settings#tokens">Back to Settings</a></p>`,
    };
  },

  async revoke(reply, seller, f) {
    const token = (await listTokens(deps.db, seller.userId)).find((t) => t.token_id === f.token && !t.revoked_at);
    if (!token) return notFound('You have no such token.');
    const problems = unconfirmed(f);
    if (problems) return refusedForm('Revoke token', revokeForm(reply, token, problems));
    await revokeApiToken(seller.ctx, seller.userId, token.token_id);
    return backTo('tokens', 'token-revoked');
  },
});
