import type { Knex } from 'knex';
import { VIEW_NAMES, type ViewDefinition } from './definition.js';
import { VIEWS_SCHEMA } from './migrate.js';
import { viewDefinitions } from './registry.js';
import { rewriteForRollups } from './rollup-rewrite.js';
import { type ResultSet, withQueryRole } from './run.js';
import { checkQuery } from './validate.js';

/** Names of the views (or of the rollup views) that exist in the database now (a registered view whose tables are missing is not among them). */
export async function existingViews(db: Knex, schema = VIEWS_SCHEMA): Promise<Set<string>> {
  const { rows } = await db.raw(
    `select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = ? and c.relkind = 'v'`,
    [schema],
  );
  return new Set(rows.map((r: { relname: string }) => r.relname));
}

/** The registered views that exist, in the spec's order. */
export async function availableViews(db: Knex, definitions: readonly ViewDefinition[]): Promise<ViewDefinition[]> {
  const existing = await existingViews(db);
  const order = (d: ViewDefinition) => VIEW_NAMES.indexOf(d.name);
  return definitions.filter((d) => existing.has(d.name)).sort((a, b) => order(a) - order(b));
}

/** Most rows a query may return; a larger result is refused rather than held in memory. */
export const MAX_RESULT_ROWS = 1_000_000;

export class TooManyRows extends Error {}

/**
 * Runs a caller's SQL over the views as the query role, seeing only `accountIds`' rows; an
 * aggregate query a rollup can answer is answered from it (`rollups: false`: never).
 * Throws SqlRefused (parser), TooManyRows, or the engine's error.
 */
export async function queryViews(
  db: Knex,
  sql: string,
  accountIds: readonly string[],
  {
    rollups = true,
    hidden,
    lap,
  }: {
    rollups?: boolean;
    /** views hidden from the caller's accounts (view name → why: hiddenFrom), refused as absent */
    hidden?: ReadonlyMap<string, string>;
    lap?: (phase: string) => void;
  } = {},
): Promise<ResultSet> {
  const result = await withQueryRole(
    db,
    accountIds,
    async (run, visible) => {
      const { statement } = await checkQuery(sql, visible.views, hidden);
      lap?.('parse and check');
      const answered =
        (rollups && rewriteForRollups(statement, viewDefinitions, visible.rollups, accountIds.length === 1)) ||
        statement;
      lap?.('rewrite');
      // The checked statement, wrapped to cap the rows; its own ORDER BY order is kept.
      return run(`select * from (\n${answered}\n) as query_data limit ${MAX_RESULT_ROWS + 1}`);
    },
    { ...(lap ? { lap } : {}) },
  );
  if (result.rows.length > MAX_RESULT_ROWS)
    throw new TooManyRows(`more than ${MAX_RESULT_ROWS.toLocaleString('en-US')} rows; aggregate or narrow the query`);
  return result;
}

const COVERAGE_TIMEOUT_MS = 10_000;

export interface ViewCoverage {
  view: string;
  has_rows: boolean;
  min_date: string | null;
  max_date: string | null;
}

/**
 * Per account, whether each view has rows and the span of its date column, read through
 * the views as query_data would (so hidden views read as empty).
 */
export async function viewCoverage(
  db: Knex,
  accountIds: readonly string[],
  definitions: readonly ViewDefinition[],
): Promise<Map<string, ViewCoverage[]>> {
  const byAccount = new Map<string, ViewCoverage[]>(accountIds.map((id) => [id, []]));
  // our own statements, each a scan of the caller's rows of one view: a longer limit than callers get
  await withQueryRole(
    db,
    accountIds,
    async (run) => {
      for (const def of definitions) {
        const view = `${VIEWS_SCHEMA}.${def.name}`;
        if (def.audience === 'reference') {
          const { rows } = await run(`select exists (select from ${view})::text`);
          for (const list of byAccount.values())
            list.push({ view: def.name, has_rows: rows[0]![0] === 'true', min_date: null, max_date: null });
          continue;
        }
        const span = def.dateColumn
          ? `min(d."${def.dateColumn}")::text, max(d."${def.dateColumn}")::text`
          : 'null, null';
        const { rows } = await run(`select d.account_id::text, ${span} from ${view} d group by d.account_id`);
        const found = new Map(rows.map(([id, min, max]) => [id!, { min, max }]));
        for (const [id, list] of byAccount) {
          const f = found.get(id);
          list.push({ view: def.name, has_rows: f !== undefined, min_date: f?.min ?? null, max_date: f?.max ?? null });
        }
      }
    },
    { timeoutMs: COVERAGE_TIMEOUT_MS },
  );
  return byAccount;
}
