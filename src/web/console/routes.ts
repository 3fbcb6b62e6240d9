import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import { html, page, sendPage as send } from '../page.js';
import { requireSignedIn, signedInUser, type WebApp } from '../session.js';
import { activityBody, filterOf } from './activity.js';
import { overviewBody, readOverview } from './overview.js';
import { readContext, type ConsoleReader } from './reads.js';
import { readTimeline } from './timeline.js';

// The seller's console (docs/decisions/156-seller-console.md):
//   GET /                    the demo seller's Overview, without sign-in
//   GET /activity            the demo seller's Activity
//   GET /console             the signed-in seller's Overview
//   GET /console/activity    the signed-in seller's Activity
// Read-only: the pages read through a tool context without an event store. Settings, the
// console's one writing page, is settings/routes.ts (docs/decisions/157-console-settings.md).

export interface ConsolePagesDeps {
  db: Knex;
  /** whose console `/` shows: the user /demo/mcp serves */
  demoUserId: string;
  now?: () => Date;
}

interface Place {
  /** where the Overview and Activity of this reader are; Settings only for a signed-in seller */
  overview: string;
  activity: string;
  settings?: string;
  reader: (req: FastifyRequest) => Promise<ConsoleReader>;
  /** e.g. "the demo seller" */
  whose: string;
}

/** The signed-in seller's console: where its pages are (settings/routes.ts serves Settings). */
export const SELLER_CONSOLE = {
  overview: '/console',
  activity: '/console/activity',
  settings: '/console/settings',
  whose: 'Your accounts',
};

/** The console's own navigation, under the site's. */
export const consoleSections = (place: Omit<Place, 'reader'>) =>
  html`<a href="${place.overview}">Overview</a> · <a href="${place.activity}">Activity</a> ·
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
  };

  serve(
    {
      overview: '/',
      activity: '/activity',
      reader: async () => ({ userId: deps.demoUserId, endpoint: 'demo' }),
      whose: 'The demo seller, read-only',
    },
    [],
  );
  serve(
    {
      ...SELLER_CONSOLE,
      reader: async (req) => ({ userId: (await signedInUser(req))!.userId, endpoint: 'mcp' }),
    },
    requireSignedIn,
  );
}
