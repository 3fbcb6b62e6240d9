import { parseSync, scanSync } from 'libpg-query';
import { quoteIdent } from '../../infra/sql.js';
import type { RollupDefinition, ViewDefinition } from './definition.js';

// Answering an aggregate query over a view from one of its rollups (definition.ts), as an
// OLAP engine's aggregate navigator does: PostgreSQL cannot see that a sum over a rollup
// equals a sum over the rows. The rewrite is taken only when it gives the same result,
// column names and types included; any query it is not sure of runs as written. It needs:
// - one SELECT (no WITH, set operation, window, subquery or join) over one view that has rollups;
// - grouping: GROUP BY, an aggregate, HAVING or a plain DISTINCT;
// - aggregates only `sum` or `avg` of a measure, `count(*)` or `count(column)`, without
//   DISTINCT, FILTER or ORDER BY;
// - every other column a dimension of the rollup it picks, a day column (sold_at) only
//   where its UTC day decides the value (date_trunc to a day or longer, ::date, extract of a
//   calendar field, or >= / < against a date), or a GROUP BY / ORDER BY name of an output column.
// The answer is wrapped so its columns carry the names the query as written would give them
// (PostgreSQL's FigureColname), and each rewritten aggregate is cast to the type it had.
// A rollup whose rows one account's `unique` dimensions tell apart answers a query of one
// account that groups by plain columns including all of those, without HAVING, by reading each
// row as its group: the GROUP BY goes and each aggregate becomes the row's own sum or count
// (every column read outside an aggregate must then be one grouped by, as PostgreSQL requires).

/** The schema of the rollup views; query_data's SQL can't name it (validate.ts allows `views` only). */
export const ROLLUPS_SCHEMA = 'view_rollups';
/** `sum` of bigints as a bigint (migrate.ts): exact, an error past the range as `sum(...)::bigint` is,
 * without the numeric state and result PostgreSQL's own `sum(bigint)` builds for every group. */
export const ROLLUP_SUM = `${ROLLUPS_SCHEMA}.rollup_sum`;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Node = { [key: string]: Json };

class NotRewritable extends Error {}

const no = (why: string): never => {
  throw new NotRewritable(why);
};

const REWRITTEN = new Set(['sum', 'count', 'avg']);
// Every aggregate and window function query_data allows: any other than the three above stops the rewrite.
const AGGREGATES = new Set(
  `count sum avg min max bool_and bool_or every bit_and bit_or string_agg array_agg json_agg jsonb_agg json_object_agg
  jsonb_object_agg stddev stddev_pop stddev_samp variance var_pop var_samp corr covar_pop covar_samp regr_avgx regr_avgy
  regr_count regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy percentile_cont percentile_disc mode any_value
  row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value`.split(/\s+/),
);
// date_trunc units and extract fields that the UTC day alone decides (the session time zone is UTC).
const DAY_UNITS = new Set(['day', 'week', 'month', 'quarter', 'year', 'decade', 'century', 'millennium']);
const DAY_FIELDS = new Set([...DAY_UNITS, 'dow', 'isodow', 'doy', 'isoyear', 'julian']);
const DATE_LITERAL = /^\d{4}-\d{2}-\d{2}$/;
// Expression nodes a rewritable query may hold; any other stops the rewrite.
const EXPRESSIONS = new Set([
  'ColumnRef',
  'A_Const',
  'TypeCast',
  'FuncCall',
  'A_Expr',
  'BoolExpr',
  'NullTest',
  'BooleanTest',
  'CaseExpr',
  'CoalesceExpr',
  'MinMaxExpr',
  'SQLValueFunction',
  'List',
]);

const SQL_VALUE_NAMES: Record<string, string> = {
  SVFOP_CURRENT_DATE: 'current_date',
  SVFOP_CURRENT_TIME: 'current_time',
  SVFOP_CURRENT_TIME_N: 'current_time',
  SVFOP_CURRENT_TIMESTAMP: 'current_timestamp',
  SVFOP_CURRENT_TIMESTAMP_N: 'current_timestamp',
  SVFOP_LOCALTIME: 'localtime',
  SVFOP_LOCALTIME_N: 'localtime',
  SVFOP_LOCALTIMESTAMP: 'localtimestamp',
  SVFOP_LOCALTIMESTAMP_N: 'localtimestamp',
};

const names = (list: Json | undefined): string[] =>
  Array.isArray(list) ? list.map((n) => ((n as Node).String as Node | undefined)?.sval as string) : [];
const only = (node: Json | undefined): [string, Node] => {
  const entries = Object.entries((node ?? {}) as Node);
  return entries.length === 1 ? [entries[0]![0], entries[0]![1] as Node] : ['', {}];
};

/** PostgreSQL's name for an output column written without AS (FigureColname), for the nodes a rewrite allows. */
function columnName(node: Json | undefined): string {
  return figure(node)[0] ?? '?column?';
}

function figure(node: Json | undefined): [string | null, number] {
  const [type, body] = only(node);
  switch (type) {
    case 'ColumnRef':
      return [names(body.fields).at(-1) ?? null, 2];
    case 'FuncCall':
      return [names(body.funcname).at(-1)!, 2];
    case 'A_Expr':
      return body.kind === 'AEXPR_NULLIF' ? ['nullif', 2] : [null, 0];
    case 'TypeCast': {
      const inner = figure(body.arg);
      return inner[1] <= 1 ? [names((body.typeName as Node).names).at(-1)!, 1] : inner;
    }
    case 'CaseExpr': {
      const inner = figure(body.defresult);
      return inner[1] <= 1 ? ['case', 1] : inner;
    }
    case 'CoalesceExpr':
      return ['coalesce', 2];
    case 'MinMaxExpr':
      return [body.op === 'IS_GREATEST' ? 'greatest' : 'least', 2];
    case 'SQLValueFunction':
      return [SQL_VALUE_NAMES[body.op as string] ?? null, 2];
    default:
      return [null, 0];
  }
}

/** An aggregate call to replace, byte offset of its start, and what replaces it. */
interface AggregateEdit {
  start: number;
  text: string;
}

interface Reading {
  view: ViewDefinition;
  /** the name the query reads the view by: its alias, else the view's name */
  relation: string;
  /** dimensions and day columns read outside aggregates */
  read: Set<string>;
  /** columns read outside aggregates in the select list, ORDER BY or HAVING */
  ungrouped: Set<string>;
  /** for the aggregates' texts, chosen once the rollup is and whether its rows are the groups */
  pending: Array<(rollup: RollupDefinition, rowsAreGroups: boolean) => AggregateEdit>;
  outputs: string[];
  /** per output: named by default (no AS) after an aggregate the rewrite replaces, so its name changes */
  renamed: boolean[];
  /** ORDER BY names of such outputs, written as their positions instead (the name would be gone) */
  positions: AggregateEdit[];
  grouping: boolean;
}

type Clause = 'target' | 'where' | 'group' | 'having' | 'sort' | 'limit';

/**
 * The query answered from a rollup of its view, or null when it must run as written.
 * `statement` is one checked SELECT (validate.ts); `views` the view definitions; `available`
 * the names of the rollup views that exist in the database; `oneAccount`: the query sees the
 * rows of one account at most.
 */
export function rewriteForRollups(
  statement: string,
  views: readonly ViewDefinition[],
  available: ReadonlySet<string>,
  oneAccount = false,
): string | null {
  try {
    return rewrite(statement, views, available, oneAccount);
  } catch (err) {
    if (err instanceof NotRewritable) return null;
    throw err;
  }
}

function rewrite(
  statement: string,
  views: readonly ViewDefinition[],
  available: ReadonlySet<string>,
  oneAccount: boolean,
): string {
  const tree = parseSync(statement) as unknown as { stmts: Array<{ stmt: Node }> };
  const [type, select] = only(tree.stmts[0]?.stmt);
  if (type !== 'SelectStmt' || select.op !== 'SETOP_NONE') no('not a plain SELECT');
  for (const clause of ['withClause', 'windowClause', 'valuesLists', 'intoClause', 'lockingClause', 'groupDistinct'])
    if (select[clause]) no(`has ${clause}`);
  const from = (select.fromClause ?? []) as Json[];
  const [fromType, range] = only(from[0]);
  if (from.length !== 1 || fromType !== 'RangeVar') no('not one relation');
  if (range.catalogname || (range.schemaname !== undefined && range.schemaname !== 'views')) no('not a view');
  const view = views.find((v) => v.name === range.relname && v.rollups?.length);
  if (!view) no('no rollups');
  const alias = range.alias as Node | undefined;
  if (alias?.colnames) no('column aliases');
  const distinct = select.distinctClause as Json[] | undefined;
  if (distinct && !(distinct.length === 1 && Object.keys(distinct[0] ?? {}).length === 0)) no('DISTINCT ON');

  const targets = ((select.targetList ?? []) as Json[]).map((t) => only(t)[1]);
  const groupItems = (select.groupClause ?? []) as Json[];
  const reading: Reading = {
    view: view!,
    relation: (alias?.aliasname as string | undefined) ?? view!.name,
    read: new Set(),
    ungrouped: new Set(),
    pending: [],
    outputs: targets.map((t) => (t.name as string | undefined) ?? columnName(t.val)),
    renamed: [],
    positions: [],
    grouping: Boolean(distinct) || groupItems.length > 0 || Boolean(select.havingClause),
  };
  const walk = new ExpressionWalk(reading);
  for (const t of targets) {
    if (t.indirection) no('indirection');
    const before = reading.pending.length;
    walk.expression(t.val, 'target');
    reading.renamed.push(t.name === undefined && reading.pending.length > before);
  }
  walk.expression(select.whereClause, 'where');
  for (const g of groupItems) walk.expression(g, 'group');
  walk.expression(select.havingClause, 'having');
  for (const s of (select.sortClause ?? []) as Json[]) {
    const [sortType, sort] = only(s);
    if (sortType !== 'SortBy') no('sort');
    // DISTINCT needs ORDER BY's expressions in the select list: two aggregates rewritten alike could meet there
    if (distinct && !walk.namesOutput(sort.node)) no('DISTINCT with ORDER BY an expression');
    walk.expression(sort.node, 'sort');
  }
  walk.expression(select.limitCount, 'limit');
  walk.expression(select.limitOffset, 'limit');
  if (!reading.grouping) no('not an aggregate query');

  const rollup = view!.rollups!.find(
    (r) => available.has(r.name) && [...reading.read].every((c) => r.dimensions.includes(c) || r.days.includes(c)),
  );
  if (!rollup) no('no rollup has what the query reads');
  // a bare GROUP BY / ORDER BY name resolves to an input column first: none may be a rollup's own
  if (reading.outputs.some((o) => o.startsWith('rollup_'))) no('output named like a rollup column');
  if (reading.outputs.some((o) => Buffer.byteLength(o) > 63)) no('long output name');

  const grouped = groupItems.map((g) => walk.groupedColumn(g, targets));
  const rowsAreGroups =
    oneAccount &&
    rollup!.unique !== undefined &&
    rollup!.days.length === 0 &&
    groupItems.length > 0 &&
    !select.havingClause &&
    grouped.every((c) => c !== null) &&
    rollup!.unique.every((c) => grouped.includes(c)) &&
    [...reading.ungrouped].every((c) => grouped.includes(c));

  const bytes = Buffer.from(statement, 'utf8');
  const tokens = scanSync(statement).tokens as Token[];
  const edits = [
    { start: range.location as number, end: nameEnd(tokens, range.location as number), text: relationText(rollup!) },
    ...reading.pending
      .map((make) => make(rollup!, rowsAreGroups))
      .map((e) => ({ ...e, end: callEnd(tokens, e.start) })),
    ...reading.positions.map((e) => ({ ...e, end: nameEnd(tokens, e.start) })),
    ...(rowsAreGroups ? [{ ...groupByClause(tokens), text: '' }] : []),
  ].sort((a, b) => a.start - b.start);
  const parts: Buffer[] = [];
  let at = 0;
  for (const e of edits) {
    if (e.start < at) no('overlapping edits');
    parts.push(bytes.subarray(at, e.start), Buffer.from(e.text));
    at = e.end;
  }
  parts.push(bytes.subarray(at));
  const body = Buffer.concat(parts).toString('utf8');
  return `select * from (\n${body}\n) as rollup_answer(${reading.outputs.map(quoteIdent).join(', ')})`;

  function relationText(r: RollupDefinition): string {
    return `${ROLLUPS_SCHEMA}.${quoteIdent(r.name)}${alias ? '' : ` as ${quoteIdent(view!.name)}`}`;
  }
}

type Token = { start: number; end: number; text: string; keywordName: string };

/** End of the (possibly schema-qualified) name starting at `start`. */
function nameEnd(tokens: readonly Token[], start: number): number {
  let i = tokens.findIndex((t) => t.start === start);
  if (i < 0) no('relation token');
  while (tokens[i + 1]?.text === '.' && tokens[i + 2]) i += 2;
  return tokens[i]!.end;
}

// Clauses that may follow GROUP BY in a query the rewrite takes (HAVING, WINDOW and FOR are refused).
const AFTER_GROUP_BY = new Set(['order', 'limit', 'offset', 'fetch']);

/** The span of the GROUP BY clause: from GROUP to the clause after it (the only GROUP keyword in a query the rewrite takes). */
function groupByClause(tokens: readonly Token[]): { start: number; end: number } {
  const keyword = (t: Token | undefined, word: string) =>
    t !== undefined && t.keywordName !== 'NO_KEYWORD' && t.text.toLowerCase() === word;
  // GROUP then BY (an output may be named "group")
  const at = tokens.findIndex((t, i) => keyword(t, 'group') && keyword(tokens[i + 1], 'by'));
  if (at < 0) no('GROUP BY token');
  let depth = 0;
  for (let i = at + 2; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.text === '(') depth++;
    else if (t.text === ')') depth--;
    // the clause after it, or a ')' closing the query around it: `(select … group by 1) order by 2`
    if (depth < 0 || (depth === 0 && t.keywordName !== 'NO_KEYWORD' && AFTER_GROUP_BY.has(t.text.toLowerCase())))
      return { start: tokens[at]!.start, end: tokens[i - 1]!.end };
  }
  return { start: tokens[at]!.start, end: tokens.at(-1)!.end };
}

/** End of the call starting at `start`: its closing parenthesis. */
function callEnd(tokens: readonly Token[], start: number): number {
  let depth = 0;
  for (const t of tokens) {
    if (t.start < start) continue;
    if (t.text === '(') depth++;
    else if (t.text === ')' && --depth === 0) return t.end;
  }
  return no('unbalanced call');
}

class ExpressionWalk {
  constructor(private readonly q: Reading) {}

  private get columns() {
    return this.q.view.columns;
  }

  /** A view column the node names (alias-qualified or not), or null for a name of something else. */
  private column(body: Node): string | null {
    const fields = names(body.fields);
    if (fields.some((f) => f === undefined)) no('star');
    const [qualifier, name] = fields.length === 2 ? fields : [null, fields[0]];
    if (fields.length > 2 || (qualifier !== null && qualifier !== this.q.relation)) no('qualified name');
    return this.columns.some((c) => c.name === name) ? name! : null;
  }

  private days(name: string): boolean {
    return this.q.view.rollups!.some((r) => r.days.includes(name));
  }

  expression(node: Json | undefined, clause: Clause, top = true): void {
    if (node === undefined || node === null) return;
    if (Array.isArray(node)) {
      for (const n of node) this.expression(n, clause, false);
      return;
    }
    const [type, body] = only(node);
    if (!EXPRESSIONS.has(type)) no(type || 'node');
    switch (type) {
      case 'ColumnRef':
        return this.columnRef(body, clause, top);
      case 'FuncCall':
        return this.call(body, clause);
      case 'TypeCast':
        if (this.dayColumn(body.arg) && ['date'].includes(names((body.typeName as Node).names).at(-1)!)) return;
        return this.expression(body.arg, clause, false);
      case 'A_Expr':
        if (this.dayComparison(body)) return;
        this.expression(body.lexpr, clause, false);
        return this.expression(body.rexpr, clause, false);
      case 'List':
        return this.expression(body.items, clause, false);
      case 'CaseExpr':
        this.expression(body.arg, clause, false);
        for (const w of (body.args ?? []) as Json[]) {
          const when = only(w)[1];
          this.expression(when.expr, clause, false);
          this.expression(when.result, clause, false);
        }
        return this.expression(body.defresult, clause, false);
      case 'BoolExpr':
      case 'CoalesceExpr':
      case 'MinMaxExpr':
        return this.expression(body.args, clause, false);
      case 'NullTest':
      case 'BooleanTest':
        return this.expression(body.arg, clause, false);
      default:
        return; // A_Const, SQLValueFunction
    }
  }

  /** Whether an ORDER BY item is a position or a bare output name (so DISTINCT finds it in the select list). */
  namesOutput(node: Json | undefined): boolean {
    const [type, body] = only(node);
    if (type === 'A_Const') return typeof (body.ival as Node | undefined)?.ival === 'number';
    return type === 'ColumnRef' && names(body.fields).length === 1 && this.q.outputs.includes(names(body.fields)[0]!);
  }

  /** The output a bare name refers to; refused when two outputs have it. */
  private output(name: string): number {
    const at = this.q.outputs.indexOf(name);
    if (at !== this.q.outputs.lastIndexOf(name)) no('ambiguous output name');
    return at;
  }

  private columnRef(body: Node, clause: Clause, top: boolean): void {
    // a bare ORDER BY name is an output column's first, a GROUP BY name an input column's first
    const output = top && names(body.fields).length === 1 && this.q.outputs.includes(names(body.fields)[0]!);
    if (output && clause === 'sort') {
      const at = this.output(names(body.fields)[0]!);
      // `order by sum` names the output `sum(price)` gets by default: by its position, the same column
      if (this.q.renamed[at]) this.q.positions.push({ start: body.location as number, text: String(at + 1) });
      return;
    }
    const name = this.column(body);
    if (name === null) {
      // GROUP BY an aggregate's output is refused as written; by a renamed one it would not be found
      if (output && clause === 'group') {
        if (this.q.renamed[this.output(names(body.fields)[0]!)]) no("an aggregate's default name");
        return;
      }
      no('unknown column');
    }
    if (this.q.view.measures?.includes(name!)) no('measure outside an aggregate');
    if (this.days(name!)) no('day column read as an instant');
    this.q.read.add(name!);
    if (clause === 'target' || clause === 'sort' || clause === 'having') this.q.ungrouped.add(name!);
  }

  /**
   * The view column a GROUP BY item groups by when it is a plain one: named (an input column
   * first, else an output column's), or the select list's column at its position; null otherwise.
   */
  groupedColumn(item: Json, targets: readonly Node[]): string | null {
    const [type, body] = only(item);
    const plain = (node: Json | undefined): string | null => {
      const [t, b] = only(node);
      return t === 'ColumnRef' ? this.column(b) : null;
    };
    if (type === 'A_Const') {
      const position = (body.ival as Node | undefined)?.ival;
      return typeof position === 'number' ? plain(targets[position - 1]?.val) : null;
    }
    if (type !== 'ColumnRef') return null;
    const name = this.column(body);
    if (name !== null) return name;
    return this.q.outputs.includes(names(body.fields)[0]!)
      ? plain(targets[this.output(names(body.fields)[0]!)]?.val)
      : null;
  }

  /** `sold_at` (a day column of the rollups) itself. */
  private dayColumn(node: Json | undefined): boolean {
    const [type, body] = only(node);
    if (type !== 'ColumnRef') return false;
    const name = this.column(body);
    if (name === null || !this.days(name)) return false;
    this.q.read.add(name);
    return true;
  }

  /** `day column >= date` or `< date` (either way round): the day decides it. */
  private dayComparison(body: Node): boolean {
    if (body.kind !== 'AEXPR_OP') return false;
    const op = names(body.name)[0];
    if (this.dayColumn(body.lexpr) && (op === '>=' || op === '<')) return dayConstant(body.rexpr) || no('instant');
    if (this.dayColumn(body.rexpr) && (op === '<=' || op === '>')) return dayConstant(body.lexpr) || no('instant');
    return false;
  }

  private call(body: Node, clause: Clause): void {
    const fn = names(body.funcname).at(-1)!;
    if (body.over) no('window');
    if (AGGREGATES.has(fn)) return this.aggregate(fn, body, clause);
    const args = (body.args ?? []) as Json[];
    if (
      (fn === 'date_trunc' || fn === 'date_part' || fn === 'extract') &&
      args.length === 2 &&
      this.dayColumn(args[1])
    ) {
      const unit = stringConstant(args[0])?.toLowerCase();
      if (unit === undefined || !(fn === 'date_trunc' ? DAY_UNITS : DAY_FIELDS).has(unit)) no('time of day');
      return;
    }
    this.expression(args, clause, false);
  }

  private aggregate(fn: string, body: Node, clause: Clause): void {
    if (!REWRITTEN.has(fn) || names(body.funcname).length > 1) no(`aggregate ${fn}`);
    if (clause === 'where' || clause === 'group' || clause === 'limit') no('aggregate out of place');
    if (body.agg_distinct || body.agg_filter || body.agg_order || body.agg_within_group || body.func_variadic)
      no('aggregate modifiers');
    this.q.grouping = true;
    const start = body.location as number;
    const args = (body.args ?? []) as Json[];
    // a count: the sum of the rows' counts, or where the rows are the groups, the row's own
    const count = (counted: string) =>
      this.q.pending.push((_, rowsAreGroups) => ({
        start,
        text: rowsAreGroups ? `(${counted})::bigint` : `coalesce(sum(${counted}), 0)::bigint`,
      }));
    if (fn === 'count' && body.agg_star) return void count('rollup_rows');
    const [argType, arg] = only(args[0]);
    if (args.length !== 1 || argType !== 'ColumnRef') no('aggregate of an expression');
    const name = this.column(arg) ?? no('aggregate of an unknown column');
    const column = this.columns.find((c) => c.name === name)!;
    const measure = this.q.view.measures?.includes(name) ?? false;
    const counted = column.nullable ? `rollup_${name}_count` : 'rollup_rows';
    if (fn === 'count') {
      if (measure || !column.nullable) return void count(counted);
      // a nullable dimension: the groups where it is set
      this.q.read.add(name);
      return void count(`case when ${quoteIdent(name)} is not null then rollup_rows else 0 end`);
    }
    if (!measure) no(`${fn} of a dimension`);
    if (column.type !== 'integer') no('sum of a non-integer');
    // sum(integer) is bigint, avg(integer) numeric (sum / count, as PostgreSQL's avg computes it)
    this.q.pending.push((_, rowsAreGroups) => {
      const sum = rowsAreGroups ? `${quoteIdent(name)}::bigint` : `${ROLLUP_SUM}(${quoteIdent(name)})`;
      const rows = rowsAreGroups ? counted : `sum(${counted})`;
      return { start, text: fn === 'sum' ? sum : `(${sum}::numeric / ${rows})` };
    });
  }
}

function stringConstant(node: Json | undefined): string | undefined {
  const [type, body] = only(node);
  return type === 'A_Const' ? ((body.sval as Node | undefined)?.sval as string | undefined) : undefined;
}

/** A constant that is the start of a UTC day: a date literal (bare or cast to a date or timestamp) or current_date ± days. */
function dayConstant(node: Json | undefined): boolean {
  const [type, body] = only(node);
  if (type === 'A_Const') return DATE_LITERAL.test(stringConstant(node) ?? '');
  if (type === 'TypeCast')
    return (
      ['date', 'timestamp', 'timestamptz'].includes(names((body.typeName as Node).names).at(-1)!) &&
      DATE_LITERAL.test(stringConstant(body.arg) ?? '')
    );
  if (type === 'SQLValueFunction') return body.op === 'SVFOP_CURRENT_DATE';
  if (type === 'A_Expr' && body.kind === 'AEXPR_OP' && ['+', '-'].includes(names(body.name)[0]!)) {
    const [constType, constant] = only(body.rexpr);
    return dayConstant(body.lexpr) && constType === 'A_Const' && constant.ival !== undefined;
  }
  return false;
}
