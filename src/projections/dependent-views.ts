import type { Knex } from 'knex';

// Views over read-model tables (the query_data views, say) block DROP TABLE. A rebuild's
// swap saves them, drops them, and recreates them over the swapped-in tables with the same
// definition, options (security_barrier), owner, grants and comment.

export interface SavedView {
  schema: string;
  name: string;
  definition: string;
  options: string[] | null;
  owner: string;
  grants: { grantee: string; privilege: string; grantable: boolean }[] | null;
  comment: string | null;
}

const DEPENDENT_VIEWS_SQL = `
  with recursive deps(oid, depth) as (
    select r.ev_class, 1
    from pg_depend d join pg_rewrite r on r.oid = d.objid
    where d.classid = 'pg_rewrite'::regclass and d.refclassid = 'pg_class'::regclass
      and d.refobjid = any(?::regclass[]) and r.ev_class <> d.refobjid
    union
    select r.ev_class, deps.depth + 1
    from deps join pg_depend d on d.refobjid = deps.oid
      and d.classid = 'pg_rewrite'::regclass and d.refclassid = 'pg_class'::regclass
    join pg_rewrite r on r.oid = d.objid
    where r.ev_class <> d.refobjid
  )
  select n.nspname as schema, c.relname as name, pg_get_viewdef(c.oid) as definition,
    c.reloptions as options, pg_get_userbyid(c.relowner) as owner,
    (select json_agg(json_build_object(
        'grantee', case when a.grantee = 0 then 'public' else pg_get_userbyid(a.grantee) end,
        'privilege', a.privilege_type, 'grantable', a.is_grantable))
      from aclexplode(c.relacl) a) as grants,
    obj_description(c.oid, 'pg_class') as comment
  from (select oid, max(depth) as depth from deps group by oid) v
  join pg_class c on c.oid = v.oid and c.relkind = 'v'
  join pg_namespace n on n.oid = c.relnamespace
  order by v.depth, n.nspname, c.relname`;

/** Drops the views that depend on `tables` (qualified names), most dependent first, and returns them in creation order. */
export async function dropDependentViews(trx: Knex.Transaction, tables: readonly string[]): Promise<SavedView[]> {
  const { rows }: { rows: SavedView[] } = await trx.raw(DEPENDENT_VIEWS_SQL, [[...tables]]);
  for (const v of [...rows].reverse()) await trx.raw('drop view ??.??', [v.schema, v.name]);
  return rows;
}

const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;

export async function recreateViews(trx: Knex.Transaction, views: readonly SavedView[]): Promise<void> {
  for (const v of views) {
    const view = `${ident(v.schema)}.${ident(v.name)}`;
    // Options and definition come from the catalog, as PostgreSQL printed them. A '?' in a
    // definition (jsonb operators) is escaped, or knex would take it for a binding.
    const options = v.options?.length ? ` with (${v.options.join(', ')})` : '';
    await trx.raw(`create view ${view}${options} as ${v.definition.replace(/\?/g, '\\?')}`);
    await trx.raw(`alter view ${view} owner to ${ident(v.owner)}`);
    for (const g of v.grants ?? []) {
      const grantee = g.grantee === 'public' ? 'public' : ident(g.grantee);
      await trx.raw(`grant ${g.privilege} on ${view} to ${grantee}${g.grantable ? ' with grant option' : ''}`);
    }
    if (v.comment !== null) await trx.raw(`comment on view ${view} is ?`, [v.comment]);
  }
}
