import { loadModule, parseSync } from 'libpg-query';

// The first wall of query_data: PostgreSQL's own parser (libpg-query, WebAssembly) reads the
// statement and an allow-list walk of its syntax tree refuses anything that isn't one plain
// SELECT over the views, using only safe built-in functions and types. Anything the walk
// doesn't know is refused. The database is the second wall (see run.ts).

export type RefusalRule =
  | 'syntax'
  | 'single_statement'
  | 'select_only'
  | 'no_select_into'
  | 'no_locking'
  | 'views_only'
  | 'function_not_allowed'
  | 'type_not_allowed'
  | 'syntax_not_allowed';

export class SqlRefused extends Error {
  constructor(
    readonly rule: RefusalRule,
    message: string,
  ) {
    super(message);
    this.name = 'SqlRefused';
  }
}

export interface CheckedStatement {
  /** the one statement's text, without a trailing semicolon or comment after it */
  statement: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Node = { [key: string]: Json };

const SCHEMA = 'views';

// Syntax-tree node types a read-only query may contain. Every statement type, XML and
// JSON constructors, parameters, TABLESAMPLE and anything newer than this list is refused.
const NODES = new Set([
  'SelectStmt',
  'ResTarget',
  'ColumnRef',
  'A_Star',
  'A_Const',
  'A_Expr',
  'TypeCast',
  'TypeName',
  'FuncCall',
  'SQLValueFunction',
  'BoolExpr',
  'NullTest',
  'BooleanTest',
  'CaseExpr',
  'CaseWhen',
  'CoalesceExpr',
  'MinMaxExpr',
  'A_ArrayExpr',
  'RowExpr',
  'SubLink',
  'A_Indirection',
  'A_Indices',
  'RangeVar',
  'JoinExpr',
  'RangeSubselect',
  'RangeFunction',
  'ColumnDef',
  'SortBy',
  'WindowDef',
  'GroupingSet',
  'GroupingFunc',
  'CollateClause',
  'NamedArgExpr',
  'CommonTableExpr',
  'CTESearchClause',
  'CTECycleClause',
  'String',
  'Integer',
  'Float',
  'Boolean',
  'BitString',
  'List',
  'Alias',
]);

// Built-in functions a query may call: aggregates, window functions, date/time, string,
// math, JSON and array helpers. Nothing that sleeps, reads files or settings, takes locks,
// runs SQL text (query_to_xml), or builds huge values on request (repeat, lpad, format).
const FUNCTIONS = new Set(
  `count sum avg min max bool_and bool_or every bit_and bit_or string_agg array_agg json_agg jsonb_agg json_object_agg
  jsonb_object_agg stddev stddev_pop stddev_samp variance var_pop var_samp corr covar_pop covar_samp regr_avgx regr_avgy
  regr_count regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy percentile_cont percentile_disc mode any_value
  row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
  now clock_timestamp statement_timestamp transaction_timestamp date_trunc date_part extract date_bin age make_date
  make_time make_timestamp make_timestamptz make_interval to_char to_date to_timestamp to_number justify_days
  justify_hours justify_interval isfinite timezone overlaps generate_series
  length char_length character_length octet_length bit_length lower upper initcap substr substring position strpos
  replace split_part btrim ltrim rtrim left right concat concat_ws reverse translate starts_with regexp_replace
  regexp_match regexp_matches regexp_split_to_array regexp_split_to_table regexp_like regexp_count regexp_instr
  regexp_substr like_escape similar_to_escape md5 to_hex ascii chr encode decode overlay string_to_array array_to_string
  abs ceil ceiling floor round trunc sign sqrt cbrt power pow exp ln log log10 mod div width_bucket pi degrees radians
  random scale gcd lcm num_nulls num_nonnulls gen_random_uuid
  to_json to_jsonb json_build_object jsonb_build_object json_build_array jsonb_build_array json_object jsonb_object
  json_array_length jsonb_array_length json_array_elements jsonb_array_elements json_array_elements_text
  jsonb_array_elements_text json_each jsonb_each json_each_text jsonb_each_text json_extract_path jsonb_extract_path
  json_extract_path_text jsonb_extract_path_text json_object_keys jsonb_object_keys json_typeof jsonb_typeof
  json_strip_nulls jsonb_strip_nulls jsonb_pretty row_to_json array_to_json jsonb_set jsonb_insert jsonb_path_query
  jsonb_path_query_array jsonb_path_query_first jsonb_path_exists jsonb_path_match json_to_record jsonb_to_record
  json_to_recordset jsonb_to_recordset
  array_length array_lower array_upper array_ndims cardinality unnest array_position array_positions array_append
  array_prepend array_cat array_remove array_replace`.split(/\s+/),
);

// Types a cast may name (internal names, as the parser writes them). No reg* types (they
// look up catalogs), no pseudo-types, no row types of relations.
const TYPES = new Set(
  'bool int2 int4 int8 numeric float4 float8 text varchar bpchar date time timetz timestamp timestamptz interval uuid json jsonb'.split(
    ' ',
  ),
);

// Current date and time only: not the user, role, schema or catalog.
const VALUE_FUNCTIONS = new Set([
  'SVFOP_CURRENT_DATE',
  'SVFOP_CURRENT_TIME',
  'SVFOP_CURRENT_TIME_N',
  'SVFOP_CURRENT_TIMESTAMP',
  'SVFOP_CURRENT_TIMESTAMP_N',
  'SVFOP_LOCALTIME',
  'SVFOP_LOCALTIME_N',
  'SVFOP_LOCALTIMESTAMP',
  'SVFOP_LOCALTIMESTAMP_N',
]);

let loaded: Promise<void> | undefined;

/**
 * Parses `sql` and refuses it (throws SqlRefused) unless it is one read-only SELECT over `views`
 * (names of the views that exist) and none of `hidden` (view name → why it is hidden from the caller).
 */
export async function checkQuery(
  sql: string,
  views: ReadonlySet<string>,
  hidden: ReadonlyMap<string, string> = new Map(),
): Promise<CheckedStatement> {
  await (loaded ??= loadModule());
  let tree: { stmts?: Array<{ stmt?: Node; stmt_location?: number; stmt_len?: number }> };
  try {
    tree = parseSync(sql) as typeof tree;
  } catch (err) {
    const details = (err as { sqlDetails?: { cursorPosition?: number } }).sqlDetails;
    const at = details?.cursorPosition !== undefined ? ` (at character ${details.cursorPosition + 1})` : '';
    throw new SqlRefused('syntax', `${(err as Error).message}${at}`);
  }
  const stmts = tree.stmts ?? [];
  if (stmts.length !== 1) {
    throw new SqlRefused(
      'single_statement',
      stmts.length === 0 ? 'there is no statement: pass one SELECT' : `one statement only: found ${stmts.length}`,
    );
  }
  const { stmt, stmt_location: location = 0, stmt_len: length } = stmts[0]!;
  const [type, body] = Object.entries(stmt ?? {})[0] ?? [];
  if (type !== 'SelectStmt')
    throw new SqlRefused('select_only', `only a SELECT is allowed; this is ${statementName(type)}`);
  new Walk(views, hidden).select(body as Node, new Set());
  // The statement's own text: the caller wraps it, so a trailing `;` or `-- comment` must go.
  const statement = length ? sql.slice(location, location + length) : sql.slice(location);
  return { statement: statement.trim() };
}

/** InsertStmt -> INSERT, VariableSetStmt -> VARIABLE SET */
function statementName(type: string | undefined): string {
  if (!type) return 'an empty statement';
  return type
    .replace(/Stmt$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toUpperCase();
}

/** INTO and FOR UPDATE/SHARE, wherever they appear. */
function refuseWriteClauses(body: Node): void {
  if (body.intoClause)
    throw new SqlRefused('no_select_into', 'SELECT ... INTO creates a table; only plain SELECT is allowed');
  if (body.lockingClause)
    throw new SqlRefused('no_locking', 'FOR UPDATE / FOR SHARE lock rows; only plain SELECT is allowed');
}

const names = (list: Json | undefined): string[] =>
  Array.isArray(list) ? list.map((n) => ((n as Node).String as Node | undefined)?.sval as string) : [];

class Walk {
  constructor(
    private readonly views: ReadonlySet<string>,
    private readonly hidden: ReadonlyMap<string, string>,
  ) {}

  /** A SELECT body (a statement, a subquery, a CTE, either side of a UNION): its WITH names are visible inside it only. */
  select(body: Node, scope: ReadonlySet<string>): void {
    refuseWriteClauses(body);
    let inner = scope;
    const withClause = body.withClause as Node | undefined;
    if (withClause) {
      const ctes = ((withClause.ctes ?? []) as Node[]).map((c) => c.CommonTableExpr as Node);
      const all = ctes.map((c) => c.ctename as string);
      ctes.forEach((cte, i) => {
        // A non-recursive WITH sees only the CTEs before it; a name not yet defined is a relation.
        const visible = new Set([...scope, ...(withClause.recursive ? all : all.slice(0, i))]);
        const [type, query] = Object.entries((cte.ctequery ?? {}) as Node)[0] ?? [];
        if (type !== 'SelectStmt')
          throw new SqlRefused(
            'select_only',
            `a WITH query must be a SELECT; ${cte.ctename} is ${statementName(type)}`,
          );
        this.select(query as Node, visible);
        const { ctequery: _, ...rest } = cte;
        this.walk(rest, visible);
      });
      inner = new Set([...scope, ...all]);
    }
    for (const [key, value] of Object.entries(body)) {
      if (key === 'withClause') continue;
      if ((key === 'larg' || key === 'rarg') && value) this.select(value as Node, inner);
      else this.walk(value, inner);
    }
  }

  private walk(value: Json | undefined, scope: ReadonlySet<string>): void {
    if (Array.isArray(value)) {
      for (const v of value) this.walk(v, scope);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) {
      if (/^[A-Z]/.test(key)) this.node(key, child as Node, scope);
      else if (key === 'intoClause' || key === 'lockingClause') refuseWriteClauses({ [key]: child });
      else if (key === 'typeName') this.type(child as Node);
      else this.walk(child, scope);
    }
  }

  private node(type: string, body: Node, scope: ReadonlySet<string>): void {
    if (!NODES.has(type)) {
      if (type.endsWith('Stmt'))
        throw new SqlRefused('select_only', `only a SELECT is allowed; found ${statementName(type)} inside it`);
      throw new SqlRefused('syntax_not_allowed', `${type} is not allowed in query_data; use plain SELECT syntax`);
    }
    switch (type) {
      case 'SelectStmt':
        return this.select(body, scope);
      case 'RangeVar':
        return this.relation(body, scope);
      case 'FuncCall':
        this.function(names(body.funcname));
        break;
      case 'TypeName':
        return this.type(body);
      case 'A_Expr':
        this.operator(names(body.name));
        break;
      case 'SortBy':
        this.operator(names(body.useOp));
        break;
      case 'SubLink':
        this.operator(names(body.operName));
        break;
      case 'SQLValueFunction':
        if (!VALUE_FUNCTIONS.has(body.op as string)) {
          throw new SqlRefused(
            'function_not_allowed',
            `${String(body.op)
              .replace(/^SVFOP_/, '')
              .toLowerCase()} is not allowed; only the current date and time are`,
          );
        }
        return;
      case 'CollateClause':
        this.qualifiedName(names(body.collname), 'collation');
        break;
    }
    const { funcname: _f, name: _n, useOp: _u, operName: _o, collname: _c, ...rest } = body;
    this.walk(rest, scope);
  }

  private relation(body: Node, scope: ReadonlySet<string>): void {
    const name = body.relname as string;
    const schema = body.schemaname as string | undefined;
    const shown = [body.catalogname, schema, name].filter(Boolean).join('.');
    if (body.catalogname || (schema !== undefined && schema !== SCHEMA)) {
      throw new SqlRefused(
        'views_only',
        `${shown} is outside the views; query only the views (describe_data lists them)`,
      );
    }
    if (schema === undefined && scope.has(name)) return;
    const why = this.hidden.get(name);
    if (why) throw new SqlRefused('views_only', `${shown} is ${why}; describe_data lists the views you can query`);
    if (!this.views.has(name))
      throw new SqlRefused('views_only', `there is no view named ${shown}; describe_data lists the views`);
  }

  private function(name: string[]): void {
    const fn = this.qualifiedName(name, 'function');
    if (!FUNCTIONS.has(fn))
      throw new SqlRefused(
        'function_not_allowed',
        `the function ${name.join('.')} is not allowed; only safe built-in functions are`,
      );
  }

  private type(body: Node): void {
    const type = this.qualifiedName(names(body.names), 'type');
    if (!TYPES.has(type) || body.setof || body.pct_type) {
      throw new SqlRefused(
        'type_not_allowed',
        `the type ${names(body.names).join('.')} is not allowed; cast to one of ${[...TYPES].join(', ')}`,
      );
    }
    this.walk({ typmods: body.typmods ?? null }, new Set());
  }

  /** Built-in operators only: OPERATOR(schema.op) is refused. */
  private operator(name: string[]): void {
    if (name.length > 1)
      throw new SqlRefused(
        'syntax_not_allowed',
        `schema-qualified operators (OPERATOR(${name.join('.')})) are not allowed`,
      );
  }

  /** `name` or `pg_catalog.name`; anything else is refused. */
  private qualifiedName(name: string[], kind: 'function' | 'type' | 'collation'): string {
    if (name.length === 1) return name[0]!;
    if (name.length === 2 && name[0] === 'pg_catalog') return name[1]!;
    const rule =
      kind === 'function' ? 'function_not_allowed' : kind === 'type' ? 'type_not_allowed' : 'syntax_not_allowed';
    throw new SqlRefused(rule, `the ${kind} ${name.join('.')} is not allowed: name built-ins without a schema`);
  }
}
