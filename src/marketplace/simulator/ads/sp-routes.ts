import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { listRequestSchema, SP_RESOURCE_NAMES, SP_RESOURCES, type SpResource } from '../../clients/ads-sp-types.js';
import { applyMutations } from './sp-mutations.js';
import type { AdsState, SpOperation } from './sp-state.js';
import { hasMediaType, scopedProfile, v3Error } from './scope.js';

// Sponsored Products v3 routes for the nine resources: POST /sp/<res>/list (paged with
// maxResults / nextToken, filtered by state, ids and parents), POST /sp/<res> (create),
// PUT /sp/<res> (update), POST /sp/<res>/delete (archive), each answering 207 item by item.

const DEFAULT_PAGE = 1000;
const MAX_PAGE = 5000;
const MAX_ITEMS = 1000;

type Entity = Record<string, unknown>;

const encodeToken = (offset: number) => Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
function decodeToken(token: string): number | null {
  try {
    const { o } = JSON.parse(Buffer.from(token, 'base64url').toString()) as { o?: unknown };
    return Number.isInteger(o) && (o as number) >= 0 ? (o as number) : null;
  } catch {
    return null;
  }
}

const includes = (filter: unknown, value: unknown) => {
  const list = (filter as { include?: unknown[] } | undefined)?.include;
  return !list || list.includes(value);
};

export function registerSponsoredProductsRoutes(
  scope: FastifyInstance,
  state: AdsState,
  guards: preHandlerAsyncHookHandler[],
): void {
  const route = { config: { api: 'ads' as const }, preHandler: guards };
  for (const resource of SP_RESOURCE_NAMES) {
    const wire = SP_RESOURCES[resource];
    const answer = (reply: FastifyReply, status: number, body: unknown) =>
      reply.code(status).type(wire.mediaType).send(body);

    scope.post(`/sp/${resource}/list`, route, async (request, reply) => {
      if (!hasMediaType(request, reply, wire.mediaType)) return reply;
      const parsed = listRequestSchema.safeParse(request.body ?? {});
      if (!parsed.success)
        return reply
          .code(400)
          .send(
            v3Error('INVALID_ARGUMENT', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')),
          );
      const body = parsed.data;
      const maxResults = body.maxResults ?? DEFAULT_PAGE;
      if (maxResults < 1 || maxResults > MAX_PAGE)
        return reply.code(400).send(v3Error('INVALID_ARGUMENT', `maxResults must be between 1 and ${MAX_PAGE}`));
      const offset = body.nextToken === undefined ? 0 : decodeToken(body.nextToken);
      if (offset === null) return reply.code(400).send(v3Error('INVALID_ARGUMENT', 'nextToken is invalid'));
      const matchTypes = body.matchTypeFilter as unknown[] | undefined;
      const all = [...(scopedProfile(request).entities[resource] as unknown as Map<string, Entity>).values()]
        .filter(
          (e) =>
            includes(body.stateFilter, e.state) &&
            includes(body[wire.idFilter], e[wire.idKey]) &&
            includes(body.campaignIdFilter, e.campaignId) &&
            includes(body.adGroupIdFilter, e.adGroupId) &&
            includes(body.expressionTypeFilter, e.expressionType) &&
            (!matchTypes || matchTypes.includes(e.matchType)),
        )
        .sort((a, b) => compareIds(String(a[wire.idKey]), String(b[wire.idKey])));
      const page = all
        .slice(offset, offset + maxResults)
        .map((e) => (body.includeExtendedDataFields || !('extendedData' in e) ? e : withoutExtendedData(e)));
      const next = offset + maxResults < all.length ? { nextToken: encodeToken(offset + maxResults) } : {};
      return answer(reply, 200, { [wire.key]: page, totalResults: all.length, ...next });
    });

    const mutate =
      (operation: SpOperation, itemsOf: (body: Record<string, unknown>) => unknown) =>
      async (request: FastifyRequest, reply: FastifyReply) => {
        if (!hasMediaType(request, reply, wire.mediaType)) return reply;
        const items = itemsOf((request.body ?? {}) as Record<string, unknown>);
        if (!Array.isArray(items) || items.length === 0 || items.length > MAX_ITEMS) {
          return reply.code(400).send(v3Error('INVALID_ARGUMENT', `expected between 1 and ${MAX_ITEMS} items`));
        }
        const representation = /return=representation/i.test(String(request.headers.prefer ?? ''));
        const result = applyMutations(
          state,
          scopedProfile(request),
          resource as SpResource,
          operation,
          items,
          representation,
        );
        return answer(reply, 207, { [wire.key]: result });
      };
    scope.post(
      `/sp/${resource}`,
      route,
      mutate('create', (b) => b[wire.key]),
    );
    scope.put(
      `/sp/${resource}`,
      route,
      mutate('update', (b) => b[wire.key]),
    );
    scope.post(
      `/sp/${resource}/delete`,
      route,
      mutate('delete', (b) => (b[wire.idFilter] as { include?: unknown } | undefined)?.include),
    );
  }
}

/** Numeric ids in numeric order (generated ids all have 15 digits; created ones may not). */
const compareIds = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

const withoutExtendedData = ({ extendedData: _, ...rest }: Entity): Entity => rest;
