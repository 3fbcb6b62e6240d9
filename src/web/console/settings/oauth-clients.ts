import type { FastifyReply } from 'fastify';
import { authorizedClients, revokeClient, type AuthorizedClient } from '../../../oauth/grants.js';
import { html, type Html } from '../../page.js';
import { backTo, notFound, refusedForm, type Handler, type Seller, type SettingsDeps } from './context.js';
import { confirmBox, postForm, unconfirmed, type Problems } from './fields.js';

// The OAuth clients (MCP clients) the seller allowed on the consent page, and revoking them: the
// grant and its tokens end (src/oauth/grants.ts).

const nameOf = (c: AuthorizedClient) => c.client_name ?? c.client_id;

const revokeForm = (reply: FastifyReply, c: AuthorizedClient, problems: Problems = {}) => {
  const id = `client-${c.grant_id}-revoke`;
  return postForm(
    reply,
    { id, action: '/console/settings/clients/revoke', hidden: { grant: c.grant_id }, submit: `Revoke ${nameOf(c)}` },
    confirmBox({
      form: id,
      problems,
      label: `Yes, revoke ${nameOf(c)}: its tokens stop working and it must ask you again`,
    }),
  );
};

export async function clientsSection(reply: FastifyReply, seller: Seller, deps: SettingsDeps): Promise<Html> {
  const clients = await authorizedClients(deps.db, seller.userId);
  if (clients.length === 0) return html`<p>No OAuth client is authorized.</p>`;
  return html`<ul class="timeline">
    ${clients.map(
      (c) =>
        html`<li>
          <strong>${nameOf(c)}</strong>${c.client_name ? html` (<code>${c.client_id}</code>)` : ''} ·
          ${c.scopes.join(' ') || 'no /mcp scope'}${c.granted_at ? ` · allowed ${c.granted_at.toISOString().slice(0, 10)}` : ''}
          ${revokeForm(reply, c)}
        </li>`,
    )}
  </ul>`;
}

export const clientPosts = (deps: SettingsDeps): Record<string, Handler> => ({
  async revoke(reply, seller, f) {
    const client = (await authorizedClients(deps.db, seller.userId)).find((c) => c.grant_id === f.grant);
    if (!client) return notFound('You have not authorized such a client.');
    const problems = unconfirmed(f);
    if (problems) return refusedForm('Revoke client', revokeForm(reply, client, problems));
    await revokeClient(deps.db, seller.userId, client.grant_id);
    return backTo('clients', 'client-revoked');
  },
});
