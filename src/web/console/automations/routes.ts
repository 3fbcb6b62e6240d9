import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import { localDate } from '../../../domain/shared/calendar.js';
import { archiveAutomationTool } from '../../../mcp/tools/archive_automation.js';
import { backtestAutomationTool } from '../../../mcp/tools/backtest_automation.js';
import { duplicateAutomationTool } from '../../../mcp/tools/duplicate_automation.js';
import { getAutomationTool } from '../../../mcp/tools/get_automation.js';
import { listAutomationsTool } from '../../../mcp/tools/list_automations.js';
import { runAutomationTool } from '../../../mcp/tools/run_automation.js';
import { updateAutomationTool } from '../../../mcp/tools/update_automation.js';
import type { ToolContext, ToolServices } from '../../../mcp/tool.js';
import { versionCode } from '../../../projections/automations/queries.js';
import { html, page, sendPage as send, type Html, type PageOptions } from '../../page.js';
import { csrfToken, verifyCsrf, type WebApp, type WebHook } from '../../session.js';
import type { ConsoleReader } from '../reads.js';
import { automationBody, comparedVersions, type AutomationRead, type Comparison } from './automation.js';
import {
  backtestArguments,
  backtestBody,
  backtestPanel,
  defaultWindow,
  type BacktestAnswer,
  type BacktestForm,
} from './backtest.js';
import { ownWrite, pageContext } from './calls.js';
import { outcomeOf, type Outcome } from '../reads.js';
import { automationCall } from '../../../mcp/automations.js';
import { deactivateAutomation } from '../../../commands/automation/lifecycle.js';
import { confirmBody, confirmed } from './confirm.js';
import { DIFF_STYLE } from './diff.js';
import {
  dryRunArguments,
  dryRunErrors,
  dryRunPanel,
  emptyDryRun,
  type DryRunAnswer,
  type DryRunForm,
} from './dry-run.js';
import { registerFlagPages } from './flag-routes.js';
import { failureText, fieldsOf, FORM_STYLE, type FieldErrors } from './form.js';
import { HIGHLIGHT_STYLE } from './highlight.js';
import { listBody, type AutomationListed } from './list.js';

// The Automations pages (docs/decisions/158-console-automations.md), under `path`:
//   GET  <path>                              the automations per event type
//   GET  <path>/:id                          one automation: code, versions' diff, panels
//   POST <path>/:id/{activate,duplicate,archive,deactivate}  through the tools (the last two ask first)
//   POST <path>/:id/dry-run                  run_automation; the page with its result
//   POST <path>/:id/backtest                 backtest_automation; to the backtest's page
//   GET  <path>/:id/backtests/:backtest_id   its progress, then its chart and changes
//   GET  <path>/:id/flags, POST …/flags/{listing,campaign}  block flags and Automation switches (flag-routes.ts)
// The demo seller's pages (no `services`) are the two GETs, read-only.

export interface AutomationPlace {
  path: string;
  /** the reader's Activity page */
  activity: string;
  reader: (req: FastifyRequest) => Promise<ConsoleReader>;
  /** the service's store, sandbox and queues: the pages can write; absent, they only read */
  services?: ToolServices;
  layout: (req: FastifyRequest, title: string, notice?: string) => Promise<PageOptions>;
  preHandler: WebHook;
}

const STYLE = FORM_STYLE + HIGHLIGHT_STYLE + DIFF_STYLE;
/** How often a running backtest's page reloads itself, in seconds. */
const BACKTEST_RELOAD_S = 2;

const DONE: Record<string, string> = {
  activated: 'Activated: it is the live automation of its event type now.',
  duplicated: 'Duplicated: this is the new draft.',
  archived: 'Archived.',
  deactivated: 'Deactivated: it is a draft now and no longer runs.',
};

export type Params = { id: string; backtest_id?: string };

/** What the pages under `path` share with flag-routes.ts. */
export interface Pages {
  path: string;
  ctxOf: (req: FastifyRequest) => Promise<ToolContext>;
  show: (
    req: FastifyRequest,
    reply: FastifyReply,
    title: string,
    body: Html,
    status?: number,
    notice?: string,
  ) => Promise<FastifyReply>;
  automationOf: (req: FastifyRequest, reply: FastifyReply, ctx: ToolContext) => Promise<AutomationRead | null>;
  /** a page's route options: signed in */
  reading: { preHandler: WebHook };
  /** a write route's options: signed in, with the CSRF token */
  writing: { preHandler: WebHook[] };
}

export function registerAutomationPages(app: WebApp, db: Knex, now: () => Date, place: AutomationPlace): void {
  const { path, services } = place;
  const ctxOf = async (req: FastifyRequest): Promise<ToolContext> =>
    pageContext(req, db, await place.reader(req), now, services);
  const show = async (
    req: FastifyRequest,
    reply: FastifyReply,
    title: string,
    body: Html,
    status = 200,
    notice?: string,
  ) => send(reply, page({ ...(await place.layout(req, title, notice)), style: STYLE }, body), status);

  const notFound = (req: FastifyRequest, reply: FastifyReply, title: string, detail: string) =>
    show(req, reply, title, html`<p><a href="${path}">All automations</a></p>`, 404, detail);

  /** The automation of the path's `:id`, or null once the 404 page is sent. */
  const automationOf = async (req: FastifyRequest, reply: FastifyReply, ctx: ToolContext) => {
    const { id } = req.params as Params;
    const got = await outcomeOf<AutomationRead>(getAutomationTool, { automation_id: id }, ctx);
    if (got.ok) return got.answer;
    await notFound(req, reply, 'No such automation', got.error.detail);
    return null;
  };

  app.get(path, { preHandler: place.preHandler }, async (req, reply) => {
    const archived = (req.query as Record<string, unknown>).archived === '1';
    const out = await outcomeOf<{ automations: AutomationListed[] }>(
      listAutomationsTool,
      { include_archived: archived },
      await ctxOf(req),
    );
    if (!out.ok) throw new Error(`list_automations refused the console: ${failureText(out.error)}`);
    return show(req, reply, 'Automations', listBody(out.answer.automations, path, archived));
  });

  /** The automation's page with the panels as given (a dry run's result, a form's errors). */
  const automationPage = async (
    req: FastifyRequest,
    reply: FastifyReply,
    ctx: ToolContext,
    panels: {
      dryRun?: { form: DryRunForm; errors: FieldErrors; outcome: Outcome<DryRunAnswer> | null };
      backtest?: { form: BacktestForm; errors: FieldErrors };
    } = {},
    status = 200,
    notice?: string,
  ) => {
    const a = await automationOf(req, reply, ctx);
    if (!a) return reply;
    const q = req.query as Record<string, unknown>;
    const asked = comparedVersions(a, q);
    let comparison: Comparison | null = null;
    if (asked && 'problem' in asked) return show(req, reply, a.title, html``, 400, asked.problem);
    if (asked) {
      const code = async (v: number) => (v === a.version ? a.code : await versionCode(db, a.id, v));
      const [from, to] = await Promise.all([code(asked.from), code(asked.to)]);
      if (from !== null && to !== null)
        comparison = { from: { version: asked.from, code: from }, to: { version: asked.to, code: to } };
    }
    const token = services ? csrfToken(reply) : '';
    const here = `${path}/${a.id}`;
    const write = services
      ? {
          token,
          dryRun: dryRunPanel(
            `${here}/dry-run`,
            token,
            panels.dryRun?.form ?? emptyDryRun,
            panels.dryRun?.errors ?? {},
            panels.dryRun?.outcome ?? null,
          ),
          backtest: backtestPanel(
            `${here}/backtest`,
            token,
            panels.backtest?.form ?? defaultWindow(localDate(now(), 'UTC')),
            panels.backtest?.errors ?? {},
          ),
        }
      : undefined;
    const done = typeof q.done === 'string' && Object.hasOwn(DONE, q.done) ? DONE[q.done] : undefined;
    return show(
      req,
      reply,
      a.title,
      automationBody({ a, path, activity: place.activity, comparison, ...(write ? { write } : {}) }),
      status,
      notice ?? done,
    );
  };

  app.get(`${path}/:id`, { preHandler: place.preHandler }, async (req, reply) =>
    automationPage(req, reply, await ctxOf(req)),
  );

  if (!services) return;
  const writing = { preHandler: [place.preHandler, verifyCsrf].flat() };
  const back = (reply: FastifyReply, id: string, done: string) => reply.redirect(`${path}/${id}?done=${done}`, 303);
  /** A refused write: the automation's page, the tool's error above it. */
  const refused = async (req: FastifyRequest, reply: FastifyReply, ctx: ToolContext, out: Outcome<unknown>) =>
    automationPage(req, reply, ctx, {}, 400, out.ok ? undefined : failureText(out.error));

  app.post(`${path}/:id/activate`, writing, async (req, reply) => {
    const { id } = req.params as Params;
    const ctx = await ctxOf(req);
    const out = await outcomeOf(updateAutomationTool, { automation_id: id, activate: true }, ctx);
    return out.ok ? back(reply, id, 'activated') : refused(req, reply, ctx, out);
  });

  app.post(`${path}/:id/duplicate`, writing, async (req, reply) => {
    const { id } = req.params as Params;
    const ctx = await ctxOf(req);
    const out = await outcomeOf<{ automation_id: string }>(duplicateAutomationTool, { automation_id: id }, ctx);
    return out.ok ? back(reply, out.answer.automation_id, 'duplicated') : refused(req, reply, ctx, out);
  });

  /** Archive and Deactivate ask first; then `act` writes, and the page shows it `done`. */
  const confirmedChange = (
    name: 'archive' | 'deactivate',
    done: string,
    ask: (a: AutomationRead) => { question: string; consequence: string; yes: string },
    act: (ctx: ToolContext, id: string) => Promise<Outcome<unknown>>,
  ) =>
    app.post(`${path}/:id/${name}`, writing, async (req, reply) => {
      const { id } = req.params as Params;
      const ctx = await ctxOf(req);
      if (!confirmed(fieldsOf(req.body))) {
        const a = await automationOf(req, reply, ctx);
        if (!a) return reply;
        const here = `${path}/${a.id}`;
        const q = ask(a);
        return show(
          req,
          reply,
          q.question,
          confirmBody(q.question, q.consequence, `${here}/${name}`, csrfToken(reply), {}, q.yes, here),
        );
      }
      const out = await act(ctx, id);
      return out.ok ? back(reply, id, done) : refused(req, reply, ctx, out);
    });

  confirmedChange(
    'archive',
    'archived',
    (a) => ({
      question: `Archive “${a.title}”?`,
      consequence:
        a.state === 'live'
          ? 'It is live: archiving deactivates it first, and it will no longer run on its events. An archived automation cannot be activated or edited again; its history stays readable.'
          : 'An archived automation cannot be activated or edited again; its history stays readable.',
      yes: 'Archive',
    }),
    (ctx, id) => outcomeOf(archiveAutomationTool, { automation_id: id }, ctx),
  );
  confirmedChange(
    'deactivate',
    'deactivated',
    (a) => ({
      question: `Deactivate “${a.title}”?`,
      consequence: `It stops running on ${a.stream_type} events at once and becomes a draft; activate it again whenever you like.`,
      yes: 'Deactivate',
    }),
    async (ctx, id) => {
      const refused = await ownWrite(ctx, async (ctx) => deactivateAutomation(await automationCall(ctx), id));
      return refused ? { ok: false, error: refused } : { ok: true, answer: null };
    },
  );

  app.post(`${path}/:id/dry-run`, writing, async (req, reply) => {
    const { id } = req.params as Params;
    const ctx = await ctxOf(req);
    const asked = dryRunArguments(fieldsOf(req.body));
    if ('errors' in asked)
      return automationPage(
        req,
        reply,
        ctx,
        { dryRun: { form: asked.form, errors: asked.errors, outcome: null } },
        400,
      );
    const out = await outcomeOf<DryRunAnswer>(runAutomationTool, { automation_id: id, ...asked.args }, ctx);
    // a run that threw answers its logs: that is the dry run's result, not a refused form
    const ran = out.ok || Array.isArray(out.error.logs);
    const errors: FieldErrors = ran || out.ok ? {} : dryRunErrors(asked.form, out.error);
    const dryRun = { form: asked.form, errors, outcome: ran ? out : null };
    return automationPage(req, reply, ctx, { dryRun }, ran ? 200 : 400);
  });

  app.post(`${path}/:id/backtest`, writing, async (req, reply) => {
    const { id } = req.params as Params;
    const ctx = await ctxOf(req);
    const asked = backtestArguments(fieldsOf(req.body));
    if ('errors' in asked) return automationPage(req, reply, ctx, { backtest: asked }, 400);
    const out = await outcomeOf<BacktestAnswer>(backtestAutomationTool, { automation_id: id, ...asked.args }, ctx);
    if (out.ok) return reply.redirect(`${path}/${id}/backtests/${out.answer.backtest_id}`, 303);
    const field = out.error.argument === 'until' ? 'until' : 'since';
    const errors = out.error.code === 'invalid_window' ? { [field]: failureText(out.error) } : {};
    return automationPage(
      req,
      reply,
      ctx,
      { backtest: { form: asked.form, errors } },
      400,
      out.error.code === 'invalid_window' ? undefined : failureText(out.error),
    );
  });

  app.get(`${path}/:id/backtests/:backtest_id`, { preHandler: place.preHandler }, async (req, reply) => {
    const { id, backtest_id } = req.params as Params;
    const out = await outcomeOf<BacktestAnswer>(backtestAutomationTool, { backtest_id }, await ctxOf(req));
    if (!out.ok) return notFound(req, reply, 'No such backtest', out.error.detail);
    const b = out.answer;
    // the URL named: a fragment the form's redirect carried over would make the reload a mere scroll
    if (b.status === 'queued' || b.status === 'running')
      reply.header('refresh', `${BACKTEST_RELOAD_S}; url=${path}/${id}/backtests/${b.backtest_id}`);
    return show(
      req,
      reply,
      'Backtest',
      html`<p><a href="${path}/${id}">Back to the automation</a></p>
        ${backtestBody(b)}`,
    );
  });

  registerFlagPages(app, { path, ctxOf, show, automationOf, reading: { preHandler: place.preHandler }, writing });
}
