import type { FastifyReply, FastifyRequest } from 'fastify';
import { updateListing } from '../../../mcp/tools/update_listing.js';
import type { ToolContext } from '../../../mcp/tool.js';
import { html } from '../../page.js';
import { csrfToken, type WebApp } from '../../session.js';
import { ownWrite } from './calls.js';
import { outcomeOf } from '../reads.js';
import { confirmBody, confirmed } from './confirm.js';
import { flagsBody, readFlags, setCampaignSwitch } from './flags.js';
import { failureText, fieldsOf } from './form.js';
import type { Pages } from './routes.js';

// The flags page of an automation's account (flags.ts), and its two one-click changes, each asked
// first: a listing's block flag, a campaign's Automation switch. Signed-in sellers only.

export function registerFlagPages(app: WebApp, { path, ctxOf, show, automationOf, reading, writing }: Pages): void {
  /** The flags of the automation's account, or the automation's 404. */
  const flagsPage = async (
    req: FastifyRequest,
    reply: FastifyReply,
    ctx: ToolContext,
    status = 200,
    notice?: string,
  ) => {
    const a = await automationOf(req, reply, ctx);
    if (!a) return reply;
    const q = req.query as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
    const search = { keyword: text(q.keyword), campaign: text(q.campaign) };
    const view = await readFlags(ctx, a.account_id, search);
    return show(
      req,
      reply,
      `Blocks and switches: ${a.title}`,
      html`<p><a href="${path}/${a.id}">Back to the automation</a></p>
        ${flagsBody(view, `${path}/${a.id}/flags`, csrfToken(reply), search)}`,
      status,
      notice ?? (q.done === 'flag' ? 'Saved.' : undefined),
    );
  };

  app.get(`${path}/:id/flags`, reading, async (req, reply) => flagsPage(req, reply, await ctxOf(req)));

  /** Asks first, then sets the flag with `set`; what it refused shows above the flags. */
  const flagWrite = async (
    req: FastifyRequest,
    reply: FastifyReply,
    kind: 'listing' | 'campaign',
    set: (ctx: ToolContext, account: string, fields: Record<string, string | undefined>) => Promise<string | null>,
  ) => {
    const ctx = await ctxOf(req);
    const fields = fieldsOf(req.body);
    const a = await automationOf(req, reply, ctx);
    if (!a) return reply;
    const here = `${path}/${a.id}/flags`;
    if (!confirmed(fields)) {
      const { _csrf: _, ...asked } = fields as Record<string, string>;
      const what =
        kind === 'listing'
          ? asked.blocked === 'true'
            ? [
                `Block listing ${asked.sku ?? ''}?`,
                'Its requests and its advertising requests will be recorded blocked and never sent, not even after you allow it again.',
                'Block',
              ]
            : [
                `Allow listing ${asked.sku ?? ''}?`,
                'Its new requests will be sent again; those blocked stay blocked.',
                'Allow',
              ]
          : asked.on === 'true'
            ? [
                'Switch the campaign’s Automation switch on?',
                'Its new requests will be sent again; those blocked stay blocked.',
                'Switch on',
              ]
            : [
                'Switch the campaign’s Automation switch off?',
                'Every request to it or under it will be recorded blocked and never sent.',
                'Switch off',
              ];
      return show(
        req,
        reply,
        'Confirm',
        confirmBody(what[0]!, what[1]!, `${here}/${kind}`, csrfToken(reply), asked, what[2]!, here),
      );
    }
    const problem = await set(ctx, a.account_id, fields);
    return problem ? flagsPage(req, reply, ctx, 400, problem) : reply.redirect(`${here}?done=flag`, 303);
  };

  app.post(`${path}/:id/flags/listing`, writing, async (req, reply) =>
    flagWrite(req, reply, 'listing', async (ctx, account, f) => {
      if (f.blocked !== 'true' && f.blocked !== 'false') return 'Choose to block or to allow the listing.';
      const out = await outcomeOf<{ updates: Array<{ saved: boolean; error?: { code: string; detail: string } }> }>(
        updateListing,
        {
          account,
          updates: [
            {
              sku: f.sku ?? '',
              blocked: f.blocked === 'true',
              ...(f.marketplace_id ? { marketplace_id: f.marketplace_id } : {}),
            },
          ],
        },
        ctx,
      );
      if (!out.ok) return failureText(out.error);
      const row = out.answer.updates[0]!;
      return row.saved ? null : failureText(row.error!);
    }),
  );

  app.post(`${path}/:id/flags/campaign`, writing, async (req, reply) =>
    flagWrite(req, reply, 'campaign', async (ctx, account, f) => {
      if (f.on !== 'true' && f.on !== 'false') return 'Choose to switch the campaign on or off.';
      const refused = await ownWrite(ctx, (ctx) =>
        setCampaignSwitch(ctx, account, f.campaign_id ?? '', f.on === 'true'),
      );
      return refused && failureText(refused);
    }),
  );
}
