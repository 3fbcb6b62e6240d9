import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import type { ToolContext } from '../../mcp/tool.js';
import { html, page, sendPage as send, type Html } from '../page.js';
import { rateLimited } from '../rate-limit.js';
import { csrfToken, requireSignedIn, signedInUser, type WebApp, type WebHook } from '../session.js';
import { DomainError } from '../../domain/shared/errors.js';
import { activityBody, filterOf } from './activity.js';
import { eventBody, readEventView, readReceipt, receiptBody, type Detail } from './detail.js';
import { overviewBody, readOverview } from './overview.js';
import type { ToolServices } from '../../mcp/tool.js';
import { registerAutomationPages } from './automations/routes.js';
import { readContext, type ConsoleReader } from './reads.js';
import { registerRevertPages } from './revert.js';
import { readTimeline } from './timeline.js';

// The seller's console (docs/decisions/156-seller-console.md):
//   GET /                    the demo seller's Overview, without sign-in
//   GET /activity            the demo seller's Activity
//   GET /console             the signed-in seller's Overview
//   GET /console/activity    the signed-in seller's Activity
//   GET …/activity/receipts/:id, …/activity/events/:id   a receipt, an event (Activity's links)
//   /automations, /console/automations: the Automations pages (automations/routes.ts)
// Overview and Activity read through a tool context without an event store; the signed-in
// seller's Automations pages and Activity's reverts write through the tools
// (docs/decisions/158-console-automations.md); Settings is settings/routes.ts
// (docs/decisions/157-console-settings.md).

export interface ConsolePagesDeps {
  db: Knex;
  /** whose console `/` shows: the user /demo/mcp serves */
  demoUserId: string;
  /** the demo pages each visitor may ask for per minute (RATE_LIMITS.demoPages without) */
  demoPagesPerMinute?: number;
  /** what the signed-in seller's Automations pages write with, as MCP calls do */
  services?: ToolServices;
  now?: () => Date;
}

interface Place {
  /** where the Overview and Activity of this reader are; Settings only for a signed-in seller */
  overview: string;
  activity: string;
  automations: string;
  settings?: string;
  reader: (req: FastifyRequest) => Promise<ConsoleReader>;
  /** e.g. "the demo seller" */
  whose: string;
  /** whether its pages may write */
  writes: boolean;
}

/** The signed-in seller's console: where its pages are (settings/routes.ts serves Settings). */
export const SELLER_CONSOLE = {
  overview: '/console',
  activity: '/console/activity',
  automations: '/console/automations',
  settings: '/console/settings',
  whose: 'Your accounts',
  writes: true,
};

/** The console's own navigation, under the site's. */
export const consoleSections = (place: Omit<Place, 'reader' | 'writes'>) =>
  html`<a href="${place.overview}">Overview</a> · <a href="${place.activity}">Activity</a> ·
    <a href="${place.automations}">Automations</a> ·
    ${place.settings ? html`<a href="${place.settings}">Settings</a> · ` : ''}<span>${place.whose}</span>`;

export function registerConsolePages<L extends FastifyBaseLogger>(service: WebApp<L>, deps: ConsolePagesDeps): void {
  // session.ts's hooks are typed for the base logger; only the logger's type differs
  const app = service as unknown as WebApp;
  const now = deps.now ?? (() => new Date());

  const layout = async (req: FastifyRequest, place: Place, title: string, notice?: string) => ({
    title,
    notice,
    signedIn: (await signedInUser(req)) !== null,
    wide: true,
    sections: consoleSections(place),
  });

  const serve = (place: Place, preHandler: WebHook) => {
    const services = place.writes ? deps.services : undefined;
    /** the CSRF token of a page whose forms write (the signed-in seller's, where the service writes) */
    const writeToken = (reply: FastifyReply) => (services ? csrfToken(reply) : undefined);
    app.get(place.overview, { preHandler }, async (req, reply) => {
      const ctx = readContext(req, deps.db, await place.reader(req), now);
      const body = overviewBody(await readOverview(ctx), place.activity);
      return send(reply, page(await layout(req, place, 'Overview'), body));
    });
    const refused = async (req: FastifyRequest, reply: FastifyReply, title: string, why: string, status: number) =>
      send(
        reply,
        page(await layout(req, place, title, why), html`<p><a href="${place.activity}">Show everything</a></p>`),
        status,
      );
    app.get(place.activity, { preHandler }, async (req, reply) => {
      const filter = filterOf(req.query as Record<string, unknown>);
      if ('problem' in filter) return refused(req, reply, 'Activity', filter.problem, 400);
      const ctx = readContext(req, deps.db, await place.reader(req), now);
      try {
        const view = { filter, ...(await readTimeline(ctx, filter)) };
        const body = activityBody(view, place.activity, writeToken(reply));
        return send(reply, page(await layout(req, place, 'Activity'), body));
      } catch (e) {
        if (e instanceof DomainError) return refused(req, reply, 'Activity', e.message, 400);
        throw e;
      }
    });
    // a receipt or an event: the tool's own refusal (not_found, event_not_found) is the page's 404
    const detail = <T>(
      path: string,
      title: string,
      read: (ctx: ToolContext, id: string) => Promise<Detail<T>>,
      body: (found: T, activity: string, token?: string) => Html,
    ) =>
      app.get(path, { preHandler }, async (req, reply) => {
        const { id } = req.params as { id: string };
        const ctx = readContext(req, deps.db, await place.reader(req), now);
        const got = await read(ctx, id);
        if ('refused' in got) return refused(req, reply, title, got.refused.detail, 404);
        return send(reply, page(await layout(req, place, title), body(got.found, place.activity, writeToken(reply))));
      });
    detail(`${place.activity}/receipts/:id`, 'Mutation receipt', readReceipt, receiptBody);
    detail(`${place.activity}/events/:id`, 'Marketplace event', readEventView, eventBody);
    registerAutomationPages(app, deps.db, now, {
      path: place.automations,
      activity: place.activity,
      reader: place.reader,
      ...(services ? { services } : {}),
      layout: (req, title, notice) => layout(req, place, title, notice),
      preHandler,
    });
    if (services)
      registerRevertPages(app, deps.db, now, {
        activity: place.activity,
        reader: place.reader,
        services,
        layout: (req, title, notice) => layout(req, place, title, notice),
        preHandler,
      });
  };

  serve(
    {
      overview: '/',
      activity: '/activity',
      automations: '/automations',
      reader: async () => ({ userId: deps.demoUserId, endpoint: 'demo' }),
      whose: 'The demo seller, read-only',
      writes: false,
    },
    // anyone may read them, as /demo/mcp: each visitor within a limit of its own
    rateLimited(
      'demoPages',
      deps.demoPagesPerMinute ? { max: deps.demoPagesPerMinute, timeWindow: 60_000 } : undefined,
    ),
  );
  serve(
    {
      ...SELLER_CONSOLE,
      reader: async (req) => ({ userId: (await signedInUser(req))!.userId, endpoint: 'mcp' }),
    },
    requireSignedIn,
  );
}
