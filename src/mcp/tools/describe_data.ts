import { z } from 'zod';
import { DomainError } from '../../domain/shared/errors.js';
import { VIEW_NAMES, type ViewDefinition, type ViewName } from '../../projections/views/definition.js';
import { availableViews, viewCoverage } from '../../projections/views/queries.js';
import { viewDefinitions } from '../../projections/views/registry.js';
import { accountArgument, accountsForRead } from '../accounts.js';
import { readTool } from '../tool.js';

// Spec 4.7: what query_data can query. Without `view`: every view's grain and the join
// graph; with `view`: its columns (type, unit, nullability), grain, freshness, joins and
// fan-out warnings; with coverage: per account, whether each view has rows and over what dates.

export const describeData = readTool('describe_data', 'Describe data views', {
  description:
    'Describes the SQL views query_data reads. Without `view`: every view with its grain, plus the join graph. With `view`: its columns (type, unit, nullability), grain, freshness, joins with fan-out warnings, and the traps to avoid. ' +
    '`coverage: true` adds, per account, whether each view has rows and the dates they span (`account` narrows to one account).',
  input: {
    view: z
      .string()
      .optional()
      .describe(`one of ${VIEW_NAMES.join(', ')}; omit for every view's grain and the join graph`),
    coverage: z.boolean().optional().describe('true adds per account whether each view has rows and over what dates'),
    account: accountArgument,
  },
  async handler(input, ctx) {
    const available = await availableViews(ctx.db, viewDefinitions);
    const def = input.view === undefined ? undefined : pickView(input.view, available);
    // account is checked whenever it is given, as every read does
    const accounts = input.coverage || input.account !== undefined ? await accountsForRead(ctx, input.account) : [];
    const body: Record<string, unknown> = def ? describeView(def, available) : overview(available);
    if (input.coverage) {
      const coverage = await viewCoverage(
        ctx.db,
        accounts.map((a) => a.id),
        def ? [def] : available,
      );
      body.coverage = accounts.map((a) => ({
        account_id: a.id,
        name: a.name,
        entity_type: a.entity_type,
        views: coverage.get(a.id),
      }));
    }
    return body;
  },
});

function pickView(name: string, available: readonly ViewDefinition[]): ViewDefinition {
  if (!(VIEW_NAMES as readonly string[]).includes(name)) {
    throw new DomainError('invalid', `view: unknown view '${name}'; one of ${VIEW_NAMES.join(', ')}`, {
      argument: 'view',
      views: VIEW_NAMES,
    });
  }
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

function overview(available: readonly ViewDefinition[]) {
  return {
    views: available.map((d) => ({ name: d.name, audience: d.audience, grain: d.grain, date_column: d.dateColumn })),
    joins: joinGraph(available),
  };
}

function describeView(def: ViewDefinition, available: readonly ViewDefinition[]) {
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
    warnings: def.warnings,
  };
}
