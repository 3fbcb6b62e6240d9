import type { datesFrom } from '../../domain/shared/calendar.js';
import type { marketplaceById } from '../../domain/shared/marketplaces.js';
import type { barChart } from '../../web/console/chart.js';
import type { html } from '../../web/page.js';

// The MCP Apps' own code, run in the host's iframe (apps.ts serializes each function into its
// page). Each reads through the tool it is linked from, over the host's `tools/call`, and draws
// with the console's chart: it may use nothing but its `kit` and the browser's globals.

interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

/** what an app uses of @modelcontextprotocol/ext-apps' App */
interface AppPort {
  ontoolinput?: (params: { arguments?: Record<string, unknown> }) => void;
  ontoolresult?: (params: ToolAnswer) => void;
  callServerTool(params: { name: string; arguments: Record<string, unknown> }): Promise<ToolAnswer>;
  connect(): Promise<void>;
}

interface AppElement {
  innerHTML: string;
  textContent: string | null;
  addEventListener(type: 'click', listener: () => void): void;
}

/** What an app gets: the App class, the console's drawing and calendar, and the page. */
export interface AppKit {
  App: new (info: { name: string; version: string }) => AppPort;
  barChart: typeof barChart;
  datesFrom: typeof datesFrom;
  html: typeof html;
  marketplaceById: typeof marketplaceById;
  doc: { getElementById(id: string): AppElement | null };
}

interface SalesRow {
  account_id: string;
  account_name: string;
  marketplace_id: string;
  currency: string | null;
  revenue: number;
}
interface SalesSummary {
  windows: Array<{ marketplace_id: string; since: string; until: string }>;
  rows: SalesRow[];
}

/**
 * Sales per day, for get_sales_summary: one chart per account, marketplace and currency of the
 * tool's answer, each day's figure get_sales_summary's own answer for that one day.
 */
export function salesPerDayApp({ App, barChart, datesFrom, html, marketplaceById, doc }: AppKit): void {
  // as the console's Overview: at most its 90 days, each a call of its own
  const MOST_DAYS = 90;
  const CALLS_AT_ONCE = 4;
  const status = doc.getElementById('status')!;
  const charts = doc.getElementById('charts')!;
  const money = (minor: number, currency: string) => {
    const format = new Intl.NumberFormat('en', { style: 'currency', currency });
    return format.format(minor / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
  };
  const app = new App({ name: 'Sales per day', version: '1.0.0' });
  let asked: Record<string, unknown> = {};
  app.ontoolinput = ({ arguments: args }) => {
    asked = args ?? {};
  };
  app.ontoolresult = (answer) => {
    draw(answer).catch((err: Error) => {
      status.textContent = `Could not read the days: ${err.message}`;
    });
  };
  app.connect().catch((err: Error) => {
    status.textContent = `No host to draw in: ${err.message}`;
  });

  async function draw(answer: ToolAnswer) {
    if (answer.isError || !answer.structuredContent) {
      status.textContent = 'get_sales_summary answered with an error: there is nothing to draw.';
      return;
    }
    const summary = answer.structuredContent as unknown as SalesSummary;
    const daysOf = (marketplace_id: string) => {
      const w = summary.windows.find((x) => x.marketplace_id === marketplace_id)!;
      return datesFrom(w.since, w.until).slice(-MOST_DAYS);
    };
    const rows = summary.rows.filter((r) => r.currency !== null && r.revenue > 0);
    const days = [...new Set(rows.flatMap((r) => daysOf(r.marketplace_id)))].sort();
    status.textContent = `Reading ${days.length} days through get_sales_summary…`;
    // the same account and marketplace as asked; each marketplace's own local day
    const scope = Object.fromEntries(
      Object.entries(asked).filter(([k]) => k === 'account' || k === 'marketplace_id'),
    ) as Record<string, unknown>;
    const revenue = new Map<string, number>();
    const key = (r: SalesRow, day: string) => `${r.account_id} ${r.marketplace_id} ${r.currency} ${day}`;
    let next = 0;
    const reader = async () => {
      while (next < days.length) {
        const day = days[next++]!;
        const one = await app.callServerTool({
          name: 'get_sales_summary',
          arguments: { ...scope, since: day, until: day },
        });
        if (one.isError || !one.structuredContent) throw new Error(`get_sales_summary refused the day ${day}`);
        for (const r of (one.structuredContent as unknown as SalesSummary).rows) revenue.set(key(r, day), r.revenue);
      }
    };
    await Promise.all(Array.from({ length: CALLS_AT_ONCE }, reader));
    charts.innerHTML = rows
      .map((r, i) => {
        const currency = r.currency!;
        const shown = daysOf(r.marketplace_id);
        const values = shown.map((day) => revenue.get(key(r, day)) ?? 0);
        const where = `${marketplaceById(r.marketplace_id)?.name ?? r.marketplace_id} (${currency}), ${r.account_name}`;
        return html`<h2>${where}</h2>
          <p>${money(r.revenue, currency)} in the window get_sales_summary answered for.</p>
          ${barChart({
            id: `sales-${i}`,
            title: `Confirmed sales per day, ${where}`,
            description: `Confirmed sales per day in ${currency}, ${money(
              values.reduce((a, b) => a + b, 0),
              currency,
            )} over the ${shown.length} days drawn.`,
            days: shown,
            series: [{ name: 'Confirmed sales', values, color: '#1a5fb4' }],
            format: (v) => money(v, currency),
          })}`.text;
      })
      .join('');
    status.textContent = rows.length
      ? `Each day read through get_sales_summary: ${days.length} calls.`
      : 'No confirmed sales in this window.';
  }
}

interface Action {
  automation_id: string;
  kind: string;
  status: string | null;
  error_message: string | null;
  action: string | null;
  target_type: string | null;
  target_id: string | null;
  decided_at: string;
}

/**
 * An automation's recent activity, for list_automation_actions: its actions per day and the
 * newest of them; Refresh asks the tool again with the same arguments.
 */
export function automationActivityApp({ App, barChart, datesFrom, html, doc }: AppKit): void {
  const status = doc.getElementById('status')!;
  const chart = doc.getElementById('chart')!;
  const list = doc.getElementById('actions')!;
  const app = new App({ name: 'Automation activity', version: '1.0.0' });
  let asked: Record<string, unknown> = {};
  app.ontoolinput = ({ arguments: args }) => {
    asked = args ?? {};
  };
  app.ontoolresult = show;
  doc.getElementById('refresh')!.addEventListener('click', () => {
    status.textContent = 'Reading list_automation_actions…';
    app.callServerTool({ name: 'list_automation_actions', arguments: asked }).then(show, (err: Error) => {
      status.textContent = `Could not read the actions: ${err.message}`;
    });
  });
  app.connect().catch((err: Error) => {
    status.textContent = `No host to show in: ${err.message}`;
  });

  function show(answer: ToolAnswer) {
    if (answer.isError || !answer.structuredContent) {
      status.textContent = 'list_automation_actions answered with an error: there is nothing to show.';
      return;
    }
    const { actions, total } = answer.structuredContent as unknown as { actions: Action[]; total: number };
    if (actions.length === 0) {
      chart.innerHTML = list.innerHTML = '';
      status.textContent = 'No actions match.';
      return;
    }
    const days = datesFrom(actions.at(-1)!.decided_at.slice(0, 10), actions[0]!.decided_at.slice(0, 10));
    const on = (failed: boolean) =>
      days.map((d) => actions.filter((a) => a.decided_at.startsWith(d) && (a.status === 'failed') === failed).length);
    const automations = [...new Set(actions.map((a) => a.automation_id))];
    const whose = automations.length === 1 ? `automation ${automations[0]}` : `${automations.length} automations`;
    chart.innerHTML = barChart({
      id: 'actions',
      title: `Actions per day (UTC) of ${whose}`,
      description: `The ${actions.length} newest actions per day.`,
      days,
      series: [
        { name: 'Not failed', values: on(false), color: '#1a5fb4' },
        { name: 'Failed', values: on(true), color: '#a51d2d' },
      ],
      format: (v) => v.toLocaleString('en'),
    }).text;
    list.innerHTML = html`<ol class="timeline">
      ${actions.map(
        (a) =>
          html`<li>
            <h2>${a.kind === 'warning' ? 'Warning' : `${a.action} on ${a.target_type} ${a.target_id}`}</h2>
            <p><time datetime="${a.decided_at}">${a.decided_at}</time> · ${a.status ?? 'warning'}</p>
            ${a.error_message ? html`<p>${a.error_message}</p>` : ''}
          </li>`,
      )}
    </ol>`.text;
    status.textContent = `${actions.length} of ${total} actions of ${whose}, newest first, as list_automation_actions answered.`;
  }
}
