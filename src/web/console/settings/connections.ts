import type { FastifyReply } from 'fastify';
import { disconnectAccount, pageMadeAccounts } from '../../../commands/account/marketplace-connections.js';
import type { AccountView } from '../../../projections/accounts/queries.js';
import { html, type Html } from '../../page.js';
import { backTo, notFound, refusedForm, type Handler, type Seller, type SettingsDeps } from './context.js';
import { confirmBox, postForm, unconfirmed, type Problems } from './fields.js';

// The seller's marketplace connections: each with its status, links to the connections pages'
// own flows to connect and reconnect (docs/decisions/096-seller-made-connections.md), and
// disconnect with a confirmation, through the same command as /connections.

type Connection = AccountView['selling'] | AccountView['ads'];

const statusOf = (c: Connection): string => {
  if (!c) return 'not connected';
  if (c.inactive) return `inactive since ${c.inactive.since.slice(0, 10)}: ${c.inactive.detail}`;
  // connected, but selling in no marketplace, or no advertising profile with a valid payment method
  return `connected (${c.provider_id})${c.active ? '' : ', not in good standing'}`;
};

const disconnectForm = (reply: FastifyReply, a: { id: string; name: string }, problems: Problems = {}) => {
  const id = `account-${a.id}-disconnect`;
  return postForm(
    reply,
    {
      id,
      action: '/console/settings/connections/disconnect',
      hidden: { account: a.id },
      submit: `Disconnect ${a.name}`,
    },
    confirmBox({
      form: id,
      problems,
      label: `Yes, disconnect ${a.name}: its syncs and events stop and its marketplace authorizations are erased`,
    }),
  );
};

export async function connectionsSection(reply: FastifyReply, seller: Seller, deps: SettingsDeps): Promise<Html> {
  const made = new Set((await pageMadeAccounts(deps.db, seller.userId)).map((a) => a.account_id));
  const adsLink = (account: string) => `/connections/ads/start?${new URLSearchParams({ account })}`;
  return html`${
      seller.accounts.length
        ? html`<ul class="timeline">
            ${seller.accounts.map(
              (a) =>
                html`<li>
                  <strong>${a.name}</strong>
                  <p>Selling: ${statusOf(a.selling)}. Advertising: ${statusOf(a.ads)}.</p>
                  ${
                    made.has(a.id)
                      ? html`<p>
                            <a href="/connections/selling/start"
                              >${a.selling?.active ? 'Reconnect' : 'Connect'} selling</a
                            >
                            ·
                            <a href="${adsLink(a.id)}">${a.ads?.active ? 'Reconnect' : 'Connect'} advertising</a>
                          </p>
                          ${disconnectForm(reply, a)}`
                      : html`<p>Connected by the operator: ask them to change it.</p>`
                  }
                </li>`,
            )}
          </ul>`
        : html`<p>No marketplace account is connected yet.</p>`
    }
    <p><a href="/connections">Connect a marketplace account</a></p>`;
}

export const connectionPosts = (deps: SettingsDeps): Record<string, Handler> => ({
  async disconnect(reply, seller, f) {
    const account = seller.accounts.find((a) => a.id === f.account);
    const made = account && (await pageMadeAccounts(deps.db, seller.userId)).some((m) => m.account_id === account.id);
    if (!account || !made) return notFound('That account is not one you connected here.');
    const problems = unconfirmed(f);
    if (problems) return refusedForm('Disconnect account', disconnectForm(reply, account, problems));
    await disconnectAccount(
      { db: deps.db, ctx: seller.ctx },
      seller.userId,
      account.id,
      (deps.now ?? (() => new Date()))(),
    );
    return backTo('connections', 'disconnected');
  },
});
