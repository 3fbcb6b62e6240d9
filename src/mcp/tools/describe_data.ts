import { z } from 'zod';
import { DomainError } from '../../domain/shared/errors.js';
import { EntityType } from '../../domain/account/events.js';
import { AUDIENCES, VIEW_NAMES, type ViewDefinition, type ViewName } from '../../projections/views/definition.js';
import { availableViews, viewCoverage } from '../../projections/views/queries.js';
import { hiddenViews, viewDefinitions } from '../../projections/views/registry.js';
import { accountArgument, accountsForRead } from '../accounts.js';
import { readTool } from '../tool.js';

// Spec 4.7: what query_data can query. Without `view`: every view's grain and the join
// graph; with `view`: its columns (type, unit, nullability), grain, freshness, joins and
// fan-out warnings; with coverage: per account, whether each view has rows and over what dates.

// a view's name as a string: the registry may hold views beyond the spec's twelve (tests add their own)
const viewName = z.string().describe('a view name, e.g. v_sales_lines');
const fanOut = z
  .string()
  .nullable()
  .describe('what multiplies rows when joining this way; null when it cannot fan out');
const dateColumn = z
  .string()
  .nullable()
  .describe('the date column coverage spans and date filters should use; null when the view has none');

export const describeData = readTool('describe_data', 'Describe data views', {
  description:
    "Describes the SQL views query_data reads (seller views are hidden from vendor accounts and vendor views from seller accounts; `account` narrows to one account's). Without `view`: every view with its grain, plus the join graph. With `view`: its columns (type, unit, nullability), grain, freshness, joins with fan-out warnings, and the traps to avoid. " +
    '`coverage: true` adds, per account, whether each of its views has rows and the dates they span.',
  input: {
    view: z
      .string()
      .optional()
      .describe(`one of ${VIEW_NAMES.join(', ')}; omit for every view's grain and the join graph`),
    coverage: z.boolean().optional().describe('true adds per account whether each view has rows and over what dates'),
    account: accountArgument,
  },
  // one object for both forms: every view (views, joins) or one (view ... warnings)
  output: z.object({
    views: z
      .array(
        z.object({
          name: viewName,
          audience: z.enum(AUDIENCES),
          grain: z.string().describe('what one row is'),
          date_column: dateColumn,
        }),
      )
      .optional()
      .describe('without `view`: every view available'),
    view: viewName.optional().describe('with `view`: the view described'),
    audience: z
      .enum(AUDIENCES)
      .optional()
      .describe("with `view`: whose rows it shows (seller and vendor views are hidden from the other kind's accounts)"),
    grain: z.string().optional().describe('with `view`: what one row is'),
    columns: z
      .array(
        z.object({
          name: z.string(),
          type: z.string().describe('the PostgreSQL type'),
          unit: z.string().nullable().describe('e.g. minor units of currency, count, ratio 0-1; null for ids and text'),
          nullable: z.boolean(),
          description: z.string(),
        }),
      )
      .optional()
      .describe('with `view`: its columns in order'),
    freshness: z.string().optional().describe('with `view`: how current the rows are and what restates'),
    date_column: dateColumn.optional().describe('with `view`: its date column; null when it has none'),
    joins: z
      .array(
        z.union([
          z.object({ from: viewName, to: viewName, on: z.string(), fan_out: fanOut }),
          z.object({ view: viewName, on: z.string(), fan_out: fanOut }),
        ]),
      )
      .describe('without `view`: the join graph (from, to); with `view`: the views it joins (view)'),
    warnings: z.array(z.string()).optional().describe('with `view`: traps for whoever aggregates or joins it'),
    coverage: z
      .array(
        z.object({
          account_id: z.string(),
          name: z.string().describe("the account's name"),
          entity_type: EntityType,
          views: z.array(
            z.object({
              view: viewName,
              has_rows: z.boolean(),
              min_date: z.string().nullable().describe("the earliest value of the view's date column"),
              max_date: z.string().nullable().describe("the latest value of the view's date column"),
            }),
          ),
        }),
      )
      .optional()
      .describe('with coverage: per account, whether each view has rows and the dates they span'),
  }),
  async handler(input, ctx) {
    // the views of the accounts in scope: seller and vendor views are hidden from the other kind's
    const accounts = await accountsForRead(ctx, input.account);
    const hidden = hiddenViews(accounts);
    const available = (await availableViews(ctx.db, viewDefinitions)).filter((d) => !hidden.has(d.name));
    const def = input.view === undefined ? undefined : pickView(input.view, available, hidden);
    const body = def ? describeView(def, available) : overview(available);
    if (!input.coverage) return body;
    const coverage = await viewCoverage(
      ctx.db,
      accounts.map((a) => a.id),
      def ? [def] : available,
    );
    return {
      ...body,
      coverage: accounts.map((a) => {
        const own = hiddenViews([a]);
        return {
          account_id: a.id,
          name: a.name,
          entity_type: a.entity_type,
          views: (coverage.get(a.id) ?? []).filter((v) => !own.has(v.view)),
        };
      }),
    };
  },
});

function pickView(
  name: string,
  available: readonly ViewDefinition[],
  hidden: ReadonlyMap<string, string>,
): ViewDefinition {
  if (!(VIEW_NAMES as readonly string[]).includes(name)) {
    throw new DomainError('invalid', `view: unknown view '${name}'; one of ${VIEW_NAMES.join(', ')}`, {
      argument: 'view',
      views: VIEW_NAMES,
    });
  }
  const why = hidden.get(name);
  if (why)
    throw new DomainError('invalid', `view: ${name} is ${why}; yours: ${available.map((d) => d.name).join(', ')}`, {
      argument: 'view',
      views: available.map((d) => d.name),
    });
  const def = available.find((d) => d.name === name);
  if (!def) {
    throw new DomainError(
      'invalid',
      `view: ${name} is not available yet; available: ${available.map((d) => d.name).join(', ') || 'none'}`,
      {
        argument: 'view',
        views: available.map((d) => d.name),
      },
    );
  }
  return def;
}

interface JoinEdge {
  from: ViewName;
  to: ViewName;
  on: string;
  fan_out: string | null;
}

/** Joins declared by any available view to another available one. */
function joinGraph(available: readonly ViewDefinition[]): JoinEdge[] {
  const names = new Set(available.map((d) => d.name));
  return available.flatMap((d) =>
    d.joins.filter((j) => names.has(j.view)).map((j) => ({ from: d.name, to: j.view, on: j.on, fan_out: j.fanOut })),
  );
}

/** Every view's grain and the join graph (also resource://service/data-dictionary.json). */
export function overview(available: readonly ViewDefinition[]) {
  return {
    views: available.map((d) => ({ name: d.name, audience: d.audience, grain: d.grain, date_column: d.dateColumn })),
    joins: joinGraph(available),
  };
}

/** One view as `describe_data` answers it (also each view of resource://service/data-dictionary.json). */
export function describeView(def: ViewDefinition, available: readonly ViewDefinition[]) {
  // joins declared on either side, seen from this view
  const joins = joinGraph(available).flatMap((e) =>
    e.from === def.name
      ? [{ view: e.to, on: e.on, fan_out: e.fan_out }]
      : e.to === def.name
        ? [{ view: e.from, on: e.on, fan_out: e.fan_out }]
        : [],
  );
  return {
    view: def.name,
    audience: def.audience,
    grain: def.grain,
    columns: def.columns.map((c) => ({
      name: c.name,
      type: c.type,
      unit: c.unit,
      nullable: c.nullable,
      description: c.description,
    })),
    freshness: def.freshness,
    date_column: def.dateColumn,
    joins,
    warnings: [...def.warnings],
  };
}
