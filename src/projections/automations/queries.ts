import type { Knex } from '../../infra/db.js';
import type { OperationDependencies } from '../../domain/automation/events.js';
import { UUID_PATTERN } from '../../domain/shared/ids.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { AUTOMATIONS_TABLE, CODE_VERSIONS_TABLE } from './projection.js';

// Reads of the automations read model, always within the caller's accounts.

export type AutomationStateName = 'draft' | 'live' | 'archived';

export type AutomationRow = {
  id: string;
  account_id: string;
  stream_type: string;
  state: AutomationStateName;
  title: string;
  version: number;
  operation_dependencies: OperationDependencies;
  source_automation_id: string | null;
  created_at: string;
  created_by: string;
  updated_at: string;
};

const STATE = `case when archived then 'archived' when live then 'live' else 'draft' end`;

const select = (db: Knex, accountIds: readonly string[]) =>
  db
    .withSchema(READ_MODEL_SCHEMA)
    .table(AUTOMATIONS_TABLE)
    .whereIn('account_id', accountIds)
    .select(
      'automation_id as id',
      'account_id',
      'stream_type',
      db.raw(`${STATE} as state`),
      'title',
      'version',
      'operation_dependencies',
      'source_automation_id',
      db.raw(`to_json(created_at) #>> '{}' as created_at`),
      'created_by',
      db.raw(`to_json(updated_at) #>> '{}' as updated_at`),
    );

export interface AutomationFilter {
  stream_type?: string;
  include_archived: boolean;
}

/** Automations of these accounts, newest first. */
export async function listAutomations(
  db: Knex,
  accountIds: readonly string[],
  filter: AutomationFilter,
): Promise<AutomationRow[]> {
  const query = select(db, accountIds).orderBy([
    { column: 'created_at', order: 'desc' },
    { column: 'automation_id', order: 'desc' },
  ]);
  if (filter.stream_type) query.where({ stream_type: filter.stream_type });
  if (!filter.include_archived) query.where({ archived: false });
  return query;
}

export type CodeVersion = {
  version: number;
  at: string;
  by: string;
};

/** One automation with its current code and its versions' history (archived ones too), or null. */
export async function findAutomation(
  db: Knex,
  accountIds: readonly string[],
  automation_id: string,
): Promise<(AutomationRow & { code: string; versions: CodeVersion[] }) | null> {
  const id = automation_id.trim().toLowerCase();
  if (!UUID_PATTERN.test(id)) return null;
  const row: AutomationRow | undefined = await select(db, accountIds)
    .select('code')
    .where({ automation_id: id })
    .first();
  if (!row) return null;
  const versions: CodeVersion[] = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table(CODE_VERSIONS_TABLE)
    .where({ automation_id: row.id })
    .orderBy('version')
    .select('version', db.raw(`to_json(at) #>> '{}' as at`), 'by');
  return { ...(row as AutomationRow & { code: string }), versions };
}

/** The code of one version of an automation, while its history keeps it; null when it doesn't. */
export async function versionCode(db: Knex, automation_id: string, version: number): Promise<string | null> {
  const row = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table(CODE_VERSIONS_TABLE)
    .where({ automation_id, version })
    .first<{ code: string } | undefined>('code');
  return row?.code ?? null;
}
