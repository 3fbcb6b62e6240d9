import { addDays, localDate } from '../../domain/shared/calendar.js';
import { accountsForRead } from '../../mcp/accounts.js';
import { coveredProfiles, windowsOf } from '../../mcp/ads.js';
import { salesReach } from '../../mcp/sales.js';
import type { ToolContext } from '../../mcp/tool.js';
import { listAutomationActionsTool } from '../../mcp/tools/list_automation_actions.js';
import { listMutations } from '../../mcp/tools/list_mutations.js';
import { listStreamsTool } from '../../mcp/tools/list_streams.js';
import { actionsPerDay } from '../../projections/automation-runs/queries.js';
import { profileDays } from '../../projections/observed/ads-queries.js';
import { salesPerDay } from '../../projections/observed/sales-queries.js';
import { deliveryCounts } from '../../projections/webhook/queries.js';
import { html, type Html } from '../page.js';
import { barChart } from './chart.js';
import { count, marketplaceName, money, percent } from './format.js';
import { answerOf } from './reads.js';

// The Overview: the last 90 days of sales and ad spend per marketplace (each in its own currency),
// automation actions and failures, webhook deliveries, and what needs attention. Reads as the
// tools do (reads.ts); per-day figures from the tools' own query functions.

export const OVERVIEW_DAYS = 90;
/** how far back an automation's failed actions count as failing */
const FAILING_DAYS = 7;

const BLUE = '#1a5fb4';
const RED = '#a51d2d';

/** the days from `first` to `last`, both included */
const daysFrom = (first: string, last: string): string[] => {
  const days: string[] = [];
  for (let d = first; d <= last; d = addDays(d, 1)) days.push(d);
  return days;
};

/** one chart's worth: the values of `rows` on each day of `days` */
const onDays = <R extends { day: string }>(days: readonly string[], rows: readonly R[], value: (r: R) => number) => {
  const byDay = new Map(rows.map((r) => [r.day, value(r)]));
  return days.map((d) => byDay.get(d) ?? 0);
};

interface MoneyChart {
  id: string;
  account: string;
  marketplace_id: string;
  currency: string;
  days: string[];
  values: number[];
}

interface Mutation {
  id: string;
  target_type: string;
  target_id: string;
  action: string;
  created_at: string;
}
interface Stream {
  account_name: string;
  stream_type: string;
  subscription: string;
  error: string | null;
}
interface FailedAction {
  automation_id: string;
  error_message: string | null;
  decided_at: string;
}

export interface Overview {
  sales: MoneyChart[];
  adSpend: MoneyChart[];
  actions: { days: string[]; applied: number[]; failed: number[] };
  deliveries: Record<'pending' | 'delivered' | 'failed' | 'cancelled', number>;
  uncertain: Mutation[];
  failedStreams: Stream[];
  failing: Array<{ automation_id: string; failed: number; last_error: string | null }>;
}

export async function readOverview(ctx: ToolContext): Promise<Overview> {
  const today = localDate(ctx.now(), 'UTC');
  const since = addDays(today, -(OVERVIEW_DAYS - 1));
  const sinceInstant = new Date(`${since}T00:00:00Z`);
  const actionDays = daysFrom(since, today);
  const accountIds = accountIdsOf(ctx);
  // the parts read side by side: each is one or two statements of its own
  const [sales, adSpend, perDay, deliveries, failedActions, uncertain, streams] = await Promise.all([
    salesChartsOf(ctx, since),
    adSpendChartsOf(ctx, since),
    accountIds.then((ids) => actionsPerDay(ctx.db, { accountIds: ids, since: sinceInstant })),
    accountIds.then((ids) => deliveryCounts(ctx.db, ids, sinceInstant)),
    answerOf<{ actions: FailedAction[] }>(
      listAutomationActionsTool,
      { status: 'failed', since: addDays(today, -(FAILING_DAYS - 1)), limit: 100 },
      ctx,
    ),
    answerOf<{ mutations: Mutation[] }>(listMutations, { status: 'uncertain', limit: 100 }, ctx),
    answerOf<{ streams: Stream[] }>(listStreamsTool, {}, ctx),
  ]);
  return {
    sales,
    adSpend,
    actions: {
      days: actionDays,
      applied: onDays(actionDays, perDay, (r) => r.actions - r.failed),
      failed: onDays(actionDays, perDay, (r) => r.failed),
    },
    deliveries,
    uncertain: uncertain.mutations,
    failedStreams: streams.streams.filter((s) => s.subscription === 'failed'),
    failing: failingAutomations(failedActions.actions),
  };
}

const accountIdsOf = async (ctx: ToolContext) => (await accountsForRead(ctx, undefined)).map((a) => a.id);

async function salesChartsOf(ctx: ToolContext, since: string): Promise<MoneyChart[]> {
  const reach = await salesReach(ctx, { since });
  const names = new Map(reach.sellers.map((a) => [a.id, a.name]));
  const sales = (await salesPerDay(ctx.db, reach.scopes)).filter((r) => r.currency !== null);
  return reach.scopes.flatMap((s) => {
    const w = reach.windows.find((x) => x.marketplace_id === s.marketplace_id)!;
    const mine = sales.filter((r) => r.account_id === s.account_id && r.marketplace_id === s.marketplace_id);
    // one chart per currency: money of two currencies is never added up
    return [...new Set(mine.map((r) => r.currency!))].map((currency) => {
      const days = daysFrom(w.since, w.until);
      return {
        id: `sales-${s.account_id}-${s.marketplace_id}-${currency}`,
        account: names.get(s.account_id) ?? s.account_id,
        marketplace_id: s.marketplace_id,
        currency,
        days,
        values: onDays(
          days,
          mine.filter((r) => r.currency === currency),
          (r) => r.revenue,
        ),
      };
    });
  });
}

async function adSpendChartsOf(ctx: ToolContext, since: string): Promise<MoneyChart[]> {
  const covered = await coveredProfiles(ctx, { since });
  const spend = await profileDays(ctx.db, windowsOf(covered));
  return covered.map((c) => {
    const days = daysFrom(c.window.first, c.window.last);
    const mine = spend.filter(
      (r) => r.account_id === c.account.id && r.provider_profile_id === c.profile.provider_profile_id,
    );
    return {
      id: `ads-${c.account.id}-${c.profile.provider_profile_id}`,
      account: c.account.name,
      marketplace_id: c.profile.marketplace_id,
      currency: c.profile.currency,
      days,
      values: onDays(days, mine, (r) => r.cost),
    };
  });
}

/** each automation with failed actions, most failures first, with its latest error */
function failingAutomations(actions: readonly FailedAction[]): Overview['failing'] {
  const by = new Map<string, Overview['failing'][number]>();
  // newest first: the first seen of an automation carries its latest error
  for (const a of actions) {
    const seen = by.get(a.automation_id);
    if (seen) seen.failed += 1;
    else by.set(a.automation_id, { automation_id: a.automation_id, failed: 1, last_error: a.error_message });
  }
  return [...by.values()].sort((a, b) => b.failed - a.failed);
}

const moneyCharts = (charts: readonly MoneyChart[], what: string, none: string): Html =>
  charts.length
    ? html`${charts.map((c) => {
        const total = c.values.reduce((a, b) => a + b, 0);
        const where = `${marketplaceName(c.marketplace_id)} (${c.currency}), ${c.account}`;
        const span = `${c.days.length} days (${c.days[0]} to ${c.days.at(-1)})`;
        return html`<h3>${where}</h3>
          <p>${money(total, c.currency)} over ${span}.</p>
          ${
            total === 0
              ? ''
              : barChart({
                  id: c.id,
                  title: `${what} per day, ${where}`,
                  description: `${what} per day in ${c.currency}, ${money(total, c.currency)} in all.`,
                  days: c.days,
                  series: [{ name: what, values: c.values, color: BLUE }],
                  format: (v) => money(v, c.currency),
                })
          }`;
      })}`
    : html`<p>${none}</p>`;

/** The Overview's content; `activity` is where the Activity page of the same seller is. */
export function overviewBody(o: Overview, activity: string): Html {
  const actions = o.actions.applied.reduce((a, b) => a + b, 0) + o.actions.failed.reduce((a, b) => a + b, 0);
  const failed = o.actions.failed.reduce((a, b) => a + b, 0);
  const settled = o.deliveries.delivered + o.deliveries.failed;
  const attention = [
    ...o.uncertain.map(
      (m) =>
        html`<li>
          Receipt <a href="${activity}?kind=receipt&amp;status=uncertain#item-${m.id}">${m.id}</a> (${m.action} on
          ${m.target_type} ${m.target_id}) is uncertain: the marketplace's answer was lost and it is being reconciled.
        </li>`,
    ),
    ...o.failedStreams.map(
      (s) =>
        html`<li>
          The ${s.stream_type} stream of ${s.account_name} failed to subscribe${s.error ? `: ${s.error}` : ''}.
        </li>`,
    ),
    ...o.failing.map(
      (f) =>
        html`<li>
          Automation <a href="${activity}?kind=action&amp;automation=${f.automation_id}">${f.automation_id}</a> had
          ${count(f.failed)} failed action${f.failed === 1 ? '' : 's'} in the last ${FAILING_DAYS}
          days${f.last_error ? `; the latest: ${f.last_error}` : ''}.
        </li>`,
    ),
  ];
  return html`<p>
      The ${OVERVIEW_DAYS} days to ${o.actions.days.at(-1)} (UTC), as the MCP tools read them; a marketplace's sales and
      ad spend count its own local days. Money is shown per marketplace, in its own currency.
    </p>
    <h2>Needs attention</h2>
    ${
      attention.length
        ? html`<ul>
            ${attention}
          </ul>`
        : html`<p>Nothing needs attention.</p>`
    }
    <h2>Sales</h2>
    ${moneyCharts(o.sales, 'Confirmed sales', 'No confirmed sales were read in these days.')}
    <h2>Ad spend</h2>
    ${moneyCharts(o.adSpend, 'Ad spend', 'No advertising profile is connected.')}
    <h2>Automation actions</h2>
    <p>${count(actions)} actions, ${count(failed)} failed. <a href="${activity}?kind=action">All actions</a></p>
    ${
      actions === 0
        ? ''
        : barChart({
            id: 'actions',
            title: 'Automation actions per day (UTC)',
            description: `Actions the automations decided per day, ${count(actions)} in all, ${count(failed)} of them failed.`,
            days: o.actions.days,
            series: [
              { name: 'Not failed', values: o.actions.applied, color: BLUE },
              { name: 'Failed', values: o.actions.failed, color: RED },
            ],
            format: count,
          })
    }
    <h2>Webhook deliveries</h2>
    <p>
      ${
        settled === 0
          ? 'No webhook delivery finished in these days.'
          : `${percent(o.deliveries.delivered, settled)} delivered: ${count(o.deliveries.delivered)} of ${count(settled)} finished deliveries.`
      }
      ${o.deliveries.pending ? ` ${count(o.deliveries.pending)} still being delivered.` : ''}
      <a href="${activity}?kind=delivery">All deliveries</a>
    </p>`;
}
