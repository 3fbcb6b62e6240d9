import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import { html, page, sendPage as send } from '../page.js';
import { requireSignedIn, signedInUser, type WebApp } from '../session.js';
import { activityBody, filterOf } from './activity.js';
import { overviewBody, readOverview } from './overview.js';
import type { ToolServices } from '../../mcp/tool.js';
import { registerAutomationPages } from './automations/routes.js';
import { readContext, type ConsoleReader } from './reads.js';
import { readTimeline } from './timeline.js';

// The seller's console (docs/decisions/156-seller-console.md):
//   GET /                    the demo seller's Overview, without sign-in
//   GET /activity            the demo seller's Activity
//   GET /console             the signed-in seller's Overview
//   GET /console/activity    the signed-in seller's Activity
//   /automations, /console/automations: the Automations pages (automations/routes.ts)
// Overview and Activity read through a tool context without an event store; the signed-in
// seller's Automations pages write through the tools (docs/decisions/158-console-automations.md).

export interface ConsolePagesDeps {
  db: Knex;
  /** whose console `/` shows: the user /demo/mcp serves */
  demoUserId: string;
  /** what the signed-in seller's Automations pages write with, as MCP calls do */
  services?: ToolServices;
  now?: () => Date;
}

interface Place {
  /** where the Overview and Activity of this reader are */
  overview: string;
  activity: string;
  automations: string;
  reader: (req: FastifyRequest) => Promise<ConsoleReader>;
  /** e.g. "the demo seller" */
  whose: string;
  /** whether its pages may write */
  writes: boolean;
}

export function registerConsolePages<L extends FastifyBaseLogger>(service: WebApp<L>, deps: ConsolePagesDeps): void {
  // session.ts's hooks are typed for the base logger; only the logger's type differs
  const app = service as unknown as WebApp;
  const now = deps.now ?? (() => new Date());

  const layout = async (req: FastifyRequest, place: Place, title: string, notice?: string) => ({
    title,
    notice,
    signedIn: (await signedInUser(req)) !== null,
    wide: true,
    sections: html`<a href="${place.overview}">Overview</a> · <a href="${place.activity}">Activity</a> ·
      <a href="${place.automations}">Automations</a> · <span>${place.whose}</span>`,
  });

  const serve = (place: Place, preHandler: typeof requireSignedIn | []) => {
    app.get(place.overview, { preHandler }, async (req, reply) => {
      const ctx = readContext(req, deps.db, await place.reader(req), now);
      const body = overviewBody(await readOverview(ctx), place.activity);
      return send(reply, page(await layout(req, place, 'Overview'), body));
    });
    app.get(place.activity, { preHandler }, async (req, reply) => {
      const filter = filterOf(req.query as Record<string, unknown>);
      if ('problem' in filter)
        return send(
          reply,
          page(
            await layout(req, place, 'Activity', filter.problem),
            html`<p><a href="${place.activity}">Show everything</a></p>`,
          ),
          400,
        );
      const ctx = readContext(req, deps.db, await place.reader(req), now);
      const view = { filter, ...(await readTimeline(ctx, filter)) };
      return send(reply, page(await layout(req, place, 'Activity'), activityBody(view, place.activity)));
    });
    registerAutomationPages(app, deps.db, now, {
      path: place.automations,
      activity: place.activity,
      reader: place.reader,
      ...(place.writes && deps.services ? { services: deps.services } : {}),
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
    [],
  );
  serve(
    {
      overview: '/console',
      activity: '/console/activity',
      automations: '/console/automations',
      reader: async (req) => ({ userId: (await signedInUser(req))!.userId, endpoint: 'mcp' }),
      whose: 'Your accounts',
      writes: true,
    },
    requireSignedIn,
  );
}
