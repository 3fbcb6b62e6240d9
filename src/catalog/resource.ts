import type { CatalogResource, CatalogResourceTemplate } from '../mcp/mcp-server.js';
import { DomainError } from '../domain/shared/errors.js';
import {
  CATALOG_RESOURCE_URI,
  PART_URI_TEMPLATE,
  parsePartUri,
  pinnedRevision,
  presentSchema,
  selectedRevision,
} from './discovery.js';
import { coverage, familiesOf, findPart, revisionInfo } from './queries.js';
import { REVIEWED, RESTRICTED } from './reviewed.js';

// Spec 1.7's `resource://service/amazon-catalog`: the selected revision with its coverage,
// source gaps, families and reviewed operations; and, under it, the schema parts get_amazon_operation
// shows as `{ oversized: true, resource }` (decision 106).

const MIME = 'application/json';

export const AMAZON_CATALOG_RESOURCE: CatalogResource = {
  listing: {
    uri: CATALOG_RESOURCE_URI,
    name: 'amazon-catalog',
    title: 'Operation catalog',
    description:
      'The marketplace API operation catalog: its revision, coverage per provider, source gaps, every family with its versions, and the reviewed operations the service runs (live reads, report requests, queued writes) and the restricted ones it refuses',
    mimeType: MIME,
  },
  async read(ctx) {
    const revision = await selectedRevision(ctx.db);
    const [info, counts, families] = await Promise.all([
      revisionInfo(ctx.db, revision),
      coverage(ctx.db, revision),
      familiesOf(ctx.db, revision),
    ]);
    const body = {
      catalog_revision: revision,
      acquired_at: info!.acquired_at.toISOString(),
      documents: info!.documents,
      coverage: counts,
      source_gaps: info!.gaps,
      families,
      reviewed: REVIEWED.map(({ key, kind, target_type, action }) => ({
        operation: key,
        kind,
        target_type,
        action: action ?? null,
      })),
      restricted: RESTRICTED.map(({ key, why }) => ({ operation: key, why })),
      how_to: [
        'search_amazon_operations finds operations (every query word must match); get_amazon_operation shows one: method, path, bindings and the request or a response schema.',
        `A schema part too large to show inline is { oversized: true, resource }: read that resource (${PART_URI_TEMPLATE}).`,
        'Pin catalog_revision (and schema_digest in operation_dependencies); a revision no longer selected answers stale_revision in discovery and schema_changed in admission.',
      ],
    };
    return { contents: [{ uri: CATALOG_RESOURCE_URI, mimeType: MIME, text: JSON.stringify(body, null, 2) }] };
  },
};

export const AMAZON_CATALOG_PARTS: CatalogResourceTemplate = {
  listing: {
    uriTemplate: PART_URI_TEMPLATE,
    name: 'amazon-catalog-part',
    title: 'Operation catalog schema part',
    description:
      'A schema part get_amazon_operation showed as { oversized: true, resource } (or a recursive reference { $ref, resource }), at a catalog revision',
    mimeType: MIME,
  },
  async read(uri, ctx) {
    const named = parsePartUri(uri);
    if (!named) return undefined;
    const revision = await pinnedRevision(ctx.db, named.revision, 'uri');
    const part = await findPart(ctx.db, named.part);
    if (part === undefined)
      throw new DomainError('not_found', `uri: catalog revision ${revision} has no schema part ${named.part}`, {
        argument: 'uri',
      });
    return { contents: [{ uri, mimeType: MIME, text: JSON.stringify(presentSchema(part, revision), null, 2) }] };
  },
};
