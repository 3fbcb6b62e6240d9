import pg from 'pg';
import { z } from 'zod';
import { DomainError } from '../../domain/shared/errors.js';
import { MAX_RESULT_ROWS, queryViews, TooManyRows } from '../../projections/views/queries.js';
import { hiddenViews } from '../../projections/views/registry.js';
import { type ResultColumn, STATEMENT_TIMEOUT_MS } from '../../projections/views/run.js';
import { SqlRefused } from '../../projections/views/validate.js';
import { accountArgument, accountsForRead } from '../accounts.js';
import { exportColumnSchema, saveExport, savedExportShape } from '../exports.js';
import { QUERY_LIMIT, takeCallSlot } from '../throttle.js';
import { readTool } from '../tool.js';

// Spec 4.7 and 8: one read-only SELECT over the views, 3 second timeout, fewer than 500 rows
// inline, otherwise (or with export) a gzip CSV to download, 300 calls per hour per user.

export const INLINE_ROWS = 500;
const PREVIEW_ROWS = 5;
const MAX_SQL_LENGTH = 100_000;

// Engine messages of these SQLSTATE classes name only what the caller wrote or could see
// (syntax, unknown names, privileges, data conversion of the caller's own rows, a statement
// too big for memory or disk).
const SAFE_CLASSES = new Set(['0A', '21', '22', '25', '42', '53', '54']);
// The database itself is down, restarting or full of connections.
const UNAVAILABLE = /^(08|57|58)|^53300$/;

export const queryData = readTool('query_data', 'Query data (SQL)', {
  description:
    'Runs one read-only SQL SELECT (PostgreSQL) over the data views (v_sales_lines, v_ad_performance, v_listings, v_marketplaces, ...; `describe_data` lists them with columns, grain and join warnings). ' +
    'Only the views and safe built-in functions; rows are confined to your accounts (`account` narrows to one). 3 second timeout. ' +
    `Fewer than ${INLINE_ROWS} rows come inline as { columns, rows (arrays in column order), row_count }; more (or export: true) come as a gzip CSV download (download_url, relative to this service, needs your bearer token on /mcp; expires in an hour) with columns and a ${PREVIEW_ROWS}-row preview. ` +
    'Money is integer minor units of `currency`: never sum across currencies. Empty results can mean data not yet synced. Limit: 300 queries per hour.',
  input: {
    sql: z.string().max(MAX_SQL_LENGTH).describe('one SELECT over the views (WITH queries of SELECTs are fine)'),
    export: z
      .boolean()
      .optional()
      .describe(
        'true returns a download URL for a gzip CSV with column definitions and a 5-row preview, whatever the row count',
      ),
    account: accountArgument,
  },
  missing: { sql: missingSql },
  // one object for both forms: inline (rows) or a download (preview and the links)
  output: z.object({
    columns: z.array(exportColumnSchema).describe('the result columns, in order'),
    rows: z
      .array(z.array(z.unknown()))
      .optional()
      .describe(
        `inline (fewer than ${INLINE_ROWS} rows, no export): each row an array in column order; booleans, numbers and JSON as such, bigint and numeric beyond 15 digits as decimal strings, everything else (dates, timestamps in UTC, uuids, arrays) as PostgreSQL text`,
      ),
    preview: z
      .array(z.array(z.unknown()))
      .optional()
      .describe(`a download: its first ${PREVIEW_ROWS} rows, as \`rows\` states them`),
    row_count: z.number().int().describe('rows in the result'),
    notice: z.string().optional().describe('present when there are no rows: what that can mean'),
    ...z.object(savedExportShape).partial().shape,
  }),
  async handler(input, ctx) {
    if (!input.sql.trim()) throw missingSql();
    const accounts = await accountsForRead(ctx, input.account);
    ctx.lap?.('accounts');
    await takeCallSlot(ctx.db, ctx, QUERY_LIMIT);
    ctx.lap?.('throttle');
    const result = await queryViews(
      ctx.db,
      input.sql,
      accounts.map((a) => a.id),
      { hidden: hiddenViews(accounts), ...(ctx.lap ? { lap: ctx.lap } : {}) },
    ).catch((err: unknown) => {
      throw queryError(err);
    });
    const columns = result.columns.map(({ name, type }) => ({ name, type }));
    const json = (rows: typeof result.rows) => rows.map((row) => row.map((v, i) => jsonValue(result.columns[i]!, v)));
    const rowCount = result.rows.length;
    if (rowCount < INLINE_ROWS && !input.export) {
      const rows = json(result.rows);
      ctx.lap?.('values');
      return {
        columns,
        rows,
        row_count: rowCount,
        ...(rowCount === 0 ? { notice: EMPTY_NOTICE } : {}),
      };
    }
    const saved = await saveExport(ctx.db, { userId: ctx.userId, endpoint: ctx.endpoint }, columns, result.rows);
    return { columns, preview: json(result.rows.slice(0, PREVIEW_ROWS)), row_count: rowCount, ...saved };
  },
});

/** Spec 7: sql left out, or holding nothing but spaces. */
function missingSql(): DomainError {
  return new DomainError('missing_sql', 'pass sql: one SELECT over the views (describe_data lists them)');
}

const EMPTY_NOTICE =
  'no rows: this can also mean the data is not synced yet; describe_data with coverage: true shows what each account has';

/** The error a caller sees for a failed query; the engine's message only when it's safe. */
function queryError(err: unknown): unknown {
  if (err instanceof SqlRefused)
    return new DomainError('query_failed', `refused by rule ${err.rule}: ${err.message}`, { rule: err.rule });
  if (err instanceof TooManyRows)
    return new DomainError('query_failed', `${err.message} (at most ${MAX_RESULT_ROWS} rows)`, { rule: 'max_rows' });
  if (!(err instanceof pg.DatabaseError) || !err.code) return err; // not reachable: `unavailable`
  if (err.code === '57014')
    return new DomainError(
      'timeout',
      `the statement ran past its ${STATEMENT_TIMEOUT_MS / 1000} second limit; narrow it (a date range, an aggregate, a LIMIT)`,
    );
  if (UNAVAILABLE.test(err.code))
    return new DomainError('unavailable', 'the query service is not reachable; retry later');
  if (SAFE_CLASSES.has(err.code.slice(0, 2))) {
    return new DomainError('query_failed', `${err.message}${err.hint ? ` (hint: ${err.hint})` : ''}`, {
      sqlstate: err.code,
    });
  }
  return new DomainError('query_failed', `the SQL engine refused the statement (SQLSTATE ${err.code})`, {
    sqlstate: err.code,
  });
}

// PostgreSQL type oids whose text form becomes another JSON type.
const BOOL = 16;
const INTS = new Set([21, 23]); // int2, int4
const EXACT = new Set([20, 1700]); // int8, numeric
const FLOATS = new Set([700, 701]);
const JSON_TYPES = new Set([114, 3802]);

/**
 * A value for the inline JSON: booleans, numbers and JSON as such; bigint and numeric as
 * numbers when a double holds them exactly (at most 15 significant digits), else as the
 * decimal string; everything else (dates, timestamps in UTC, uuids, arrays) as PostgreSQL text.
 */
export function jsonValue(column: ResultColumn, text: string | null): unknown {
  if (text === null) return null;
  if (column.oid === BOOL) return text === 't';
  if (INTS.has(column.oid)) return Number(text);
  if (EXACT.has(column.oid)) return exactNumber(text);
  if (FLOATS.has(column.oid)) return Number.isFinite(Number(text)) ? Number(text) : text;
  if (JSON_TYPES.has(column.oid)) return JSON.parse(text) as unknown;
  return text;
}

function exactNumber(text: string): number | string {
  if (!/^-?\d+(\.\d+)?$/.test(text)) return text;
  const significant = text.replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return significant.length <= 15 ? Number(text) : text;
}
