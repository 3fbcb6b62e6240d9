import { DomainError } from '../domain/shared/errors.js';
import type { Knex } from '../infra/db.js';
import { currentRevision, revisionKnown } from './queries.js';

// What discovery (search_amazon_operations, get_amazon_operation, the catalog resource) shares:
// the resource URIs, stored parts shown as those URIs, and which revision a question is about
// (decision 106: a pinned revision is named as `<key>@<revision>` or inside a part's URI; one
// no longer selected is `stale_revision` with the current one).

export const CATALOG_RESOURCE_URI = 'resource://service/amazon-catalog';
export const PART_URI_TEMPLATE = `${CATALOG_RESOURCE_URI}/{revision}/parts/{part}`;

const HEX64 = /^[0-9a-f]{64}$/;

export const partUri = (revision: string, part: string) => `${CATALOG_RESOURCE_URI}/${revision}/parts/${part}`;

/** The revision and part a part URI names, or null when `uri` is no part URI. */
export function parsePartUri(uri: string): { revision: string; part: string } | null {
  const match = /^resource:\/\/service\/amazon-catalog\/([^/]+)\/parts\/([^/]+)$/.exec(uri);
  if (!match || !HEX64.test(match[1]!) || !HEX64.test(match[2]!)) return null;
  return { revision: match[1]!, part: match[2]! };
}

/** A stored schema as a caller sees it: every kept-aside part and recursive reference names its resource URI. */
export function presentSchema(value: unknown, revision: string): unknown {
  if (Array.isArray(value)) return value.map((v) => presentSchema(v, revision));
  if (!value || typeof value !== 'object') return value;
  const node = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(node)) {
    if (key === 'part' && typeof v === 'string' && (node.oversized === true || typeof node.$ref === 'string'))
      out.resource = partUri(revision, v);
    else out[key] = presentSchema(v, revision);
  }
  return out;
}

/** A catalog exists: discovery answers from the selected revision. */
export async function selectedRevision(db: Knex): Promise<string> {
  const revision = await currentRevision(db);
  if (revision === null)
    throw new DomainError(
      'unavailable',
      'the operation catalog has not been acquired yet (an operator runs `catalog acquire`); retry later',
    );
  return revision;
}

/**
 * The revision a caller pinned, checked against the selected one: `stale_revision` (with
 * `current_revision`) when it was selected once and no longer is, `invalid` when it never was.
 */
export async function pinnedRevision(db: Knex, asked: string, argument: string): Promise<string> {
  const current = await selectedRevision(db);
  if (asked === current) return current;
  if (await revisionKnown(db, asked))
    throw new DomainError(
      'stale_revision',
      `${argument}: catalog revision ${asked} is no longer selected; rediscover at ${current}`,
      { argument, current_revision: current },
    );
  throw new DomainError('invalid', `${argument}: '${asked}' is not a catalog revision of this service`, {
    argument,
  });
}
