import type { Knex } from '../../infra/db.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { AUTOMATIONS_TABLE, CODE_VERSIONS_TABLE } from './projection.js';

// Retention of code versions (spec 8: a year from the edit): which automations hold a version,
// other than their current one, edited before the cutoff.

export async function automationsWithExpiredVersions(db: Knex, before: Date, limit: number): Promise<string[]> {
  const rows: { automation_id: string }[] = await db
    .withSchema(READ_MODEL_SCHEMA)
    .from(`${CODE_VERSIONS_TABLE} as v`)
    .join(`${AUTOMATIONS_TABLE} as a`, 'a.automation_id', 'v.automation_id')
    .where('v.at', '<', before)
    .whereRaw('v.version <> a.version')
    .distinct('v.automation_id')
    .orderBy('v.automation_id')
    .limit(limit);
  return rows.map((r) => r.automation_id);
}
