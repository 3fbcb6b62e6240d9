import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { formOf, html, type FormFields } from '../../page.js';
import { requireSignedIn, verifyCsrf, type WebApp } from '../../session.js';
import { SELLER_CONSOLE } from '../routes.js';
import { alertPosts, alertsSection } from './alerts.js';
import { connectionPosts, connectionsSection } from './connections.js';
import { DONE, sellerOf, sendSettingsPage, type Answer, type Handler, type SettingsDeps } from './context.js';
import { clientPosts, clientsSection } from './oauth-clients.js';
import { pausePosts, pausesSection } from './pauses.js';
import { sendTest } from './send-test.js';
import { tokenPosts, tokensSection } from './tokens.js';
import { editPage, webhookPosts, webhooksSection, WEBHOOKS_PATH } from './webhooks.js';

// The signed-in seller's Settings (docs/decisions/157-console-settings.md), the console's one
// writing page:
//   GET  /console/settings                          every section
//   GET  /console/settings/webhooks/edit?account=&webhook=
//   POST /console/settings/webhooks/{add,edit,enabled,rotate,remove,test}
//   POST /console/settings/tokens/{create,revoke}
//   POST /console/settings/clients/revoke
//   POST /console/settings/connections/disconnect
//   POST /console/settings/pauses/{automations,admissions}   (admissions: operators only, else 403)
//   POST /console/settings/alerts/destination
// Every POST takes the CSRF token (without it: 403, nothing changes); a refused field answers 400
// with the form again; a success goes back to Settings, or answers a page that shows a new
// secret once.

const SECTIONS = [
  { id: 'webhooks', title: 'Webhooks', render: webhooksSection },
  { id: 'tokens', title: 'Personal access tokens', render: tokensSection },
  { id: 'clients', title: 'Authorized OAuth clients', render: clientsSection },
  { id: 'connections', title: 'Marketplace connections', render: connectionsSection },
  { id: 'pauses', title: 'Pauses', render: pausesSection },
  { id: 'alerts', title: 'Alerts', render: alertsSection },
];

export function registerSettingsPages<L extends FastifyBaseLogger>(service: WebApp<L>, deps: SettingsDeps): void {
  // session.ts's hooks are typed for the base logger; only the logger's type differs
  const app = service as unknown as WebApp;
  const answer = (reply: FastifyReply, a: Answer) =>
    'redirect' in a ? reply.redirect(a.redirect, 303) : sendSettingsPage(reply, a.title, a.body, a);

  app.get(SELLER_CONSOLE.settings, { preHandler: requireSignedIn }, async (req, reply) => {
    const seller = await sellerOf(req, deps);
    const done = (req.query as FormFields).done;
    const said = typeof done === 'string' && Object.hasOwn(DONE, done) ? DONE[done as keyof typeof DONE] : null;
    const sections = await Promise.all(
      SECTIONS.map(
        async (s) =>
          html`<section id="${s.id}" aria-labelledby="${s.id}-title">
            <h2 id="${s.id}-title">${s.title}</h2>
            ${await s.render(reply, seller, deps)}
          </section>`,
      ),
    );
    const body = html`${said ? html`<p role="status">${said}</p>` : ''}
      <p>${SECTIONS.map((s, i) => html`${i ? ' · ' : ''}<a href="#${s.id}">${s.title}</a>`)}</p>
      ${sections}`;
    return sendSettingsPage(reply, 'Settings', body);
  });

  app.get(`${WEBHOOKS_PATH}/edit`, { preHandler: requireSignedIn }, async (req, reply) =>
    answer(reply, await editPage(reply, await sellerOf(req, deps), deps, req.query as FormFields)),
  );

  const posts: Record<string, Handler> = {
    ...prefixed('webhooks', { ...webhookPosts(deps), test: (reply, seller, f) => sendTest(reply, seller, deps, f) }),
    ...prefixed('tokens', tokenPosts(deps)),
    ...prefixed('clients', clientPosts(deps)),
    ...prefixed('connections', connectionPosts(deps)),
    ...prefixed('pauses', pausePosts(deps)),
    ...prefixed('alerts', alertPosts(deps)),
  };
  for (const [path, handle] of Object.entries(posts))
    app.post(
      `${SELLER_CONSOLE.settings}/${path}`,
      { preHandler: [requireSignedIn, verifyCsrf] },
      async (req, reply) => {
        const seller = await sellerOf(req, deps);
        let result: Answer;
        try {
          result = await handle(reply, seller, formOf(req));
        } finally {
          // before answering: the page the seller goes to next waits for what this appended
          await seller.done();
        }
        return answer(reply, result);
      },
    );
}

const prefixed = (section: string, handlers: Record<string, Handler>): Record<string, Handler> =>
  Object.fromEntries(Object.entries(handlers).map(([name, h]) => [`${section}/${name}`, h]));
