import { z } from 'zod';
import type { AdsCall } from './ads.js';
import type { HttpAnswer } from './http.js';
import {
  multiStatusSchema,
  SP_RESOURCES,
  type SpEntities,
  type SpListRequest,
  type SpMultiStatus,
  type SpResource,
} from './ads-sp-types.js';

// Sponsored Products v3 through the one HTTP layer: list pages, and create / update / delete
// with their 207 multi-status answers turned into { success: [{ index, id, entity? }], error }.

export interface SpListPage<E> {
  items: E[];
  nextToken?: string;
  totalResults?: number;
}

/** A create or update of `items`; `representation` asks for the entities as they now are. */
type SpWrite = <R extends SpResource>(
  profileId: string,
  resource: R,
  items: readonly object[],
  options?: { representation?: boolean },
) => Promise<SpResult<SpEntities[R]>>;

export interface SpClient {
  /** One page of `POST /sp/<resource>/list`. */
  list<R extends SpResource>(
    profileId: string,
    resource: R,
    request?: SpListRequest,
  ): Promise<SpListPage<SpEntities[R]>>;
  /** Every page of a list, following nextToken. */
  pages<R extends SpResource>(profileId: string, resource: R, request?: SpListRequest): AsyncIterable<SpEntities[R][]>;
  /** `POST /sp/<resource>`; `representation` asks for the created entities (Prefer: return=representation). */
  create: SpWrite;
  /** `PUT /sp/<resource>`: each item names its id and the fields to change. */
  update: SpWrite;
  /** `POST /sp/<resource>/delete`: archives the entities with these ids. */
  delete<R extends SpResource>(
    profileId: string,
    resource: R,
    ids: readonly string[],
  ): Promise<SpResult<SpEntities[R]>>;
}

/** A 207 answer item by item, plus the body exactly as the provider sent it, its HTTP status and request id. */
export type SpResult<E> = SpMultiStatus<E> & { raw: unknown; status: number; requestId: string | null };

export function createSpClient(call: AdsCall): SpClient {
  async function list<R extends SpResource>(
    profileId: string,
    resource: R,
    request: SpListRequest = {},
  ): Promise<SpListPage<SpEntities[R]>> {
    const wire = SP_RESOURCES[resource];
    const schema = z.object({
      [wire.key]: z.array(wire.schema),
      nextToken: z.string().optional(),
      totalResults: z.number().int().optional(),
    });
    const body = await call({
      method: 'POST',
      path: `/sp/${resource}/list`,
      profileId,
      mediaType: wire.mediaType,
      json: request,
      schema,
      idempotent: true,
    });
    return {
      items: body[wire.key] as SpEntities[R][],
      ...(body.nextToken ? { nextToken: body.nextToken as string } : {}),
      ...(body.totalResults !== undefined ? { totalResults: body.totalResults as number } : {}),
    };
  }

  async function mutate<R extends SpResource>(
    profileId: string,
    resource: R,
    method: 'POST' | 'PUT',
    path: string,
    json: unknown,
    representation: boolean,
  ): Promise<SpResult<SpEntities[R]>> {
    const wire = SP_RESOURCES[resource];
    const bodySchema = z.object({ [wire.key]: multiStatusSchema });
    // keep the body as sent beside the parsed answer: receipts carry the provider's own words
    const schema = z.unknown().transform((raw, ctx) => {
      const parsed = bodySchema.safeParse(raw);
      if (parsed.success) return { raw, answer: parsed.data[wire.key] as z.infer<typeof multiStatusSchema> };
      for (const issue of parsed.error.issues)
        ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
      return z.NEVER;
    });
    let meta: HttpAnswer = { status: 0, requestId: null };
    const { raw, answer } = await call({
      onAnswer: (a) => (meta = a),
      method,
      path,
      profileId,
      mediaType: wire.mediaType,
      json,
      schema,
      ...(representation ? { headers: { prefer: 'return=representation' } } : {}),
    });
    return {
      success: answer.success.map((item) => {
        const entity = wire.schema.safeParse(item[wire.successKey]);
        return {
          index: item.index,
          id: String(item[wire.successIdKey]),
          ...(entity.success ? { entity: entity.data as SpEntities[R] } : {}),
        };
      }),
      error: answer.error.map(({ index, errors }) => ({ index, errors })),
      raw,
      ...meta,
    };
  }

  // create and update differ only in the method
  const write =
    (method: 'POST' | 'PUT'): SpWrite =>
    (profileId, resource, items, options = {}) =>
      mutate(
        profileId,
        resource,
        method,
        `/sp/${resource}`,
        { [SP_RESOURCES[resource].key]: items },
        options.representation ?? false,
      );

  return {
    list,
    async *pages(profileId, resource, request = {}) {
      let nextToken: string | undefined;
      do {
        const page = await list(profileId, resource, { ...request, ...(nextToken ? { nextToken } : {}) });
        yield page.items;
        nextToken = page.nextToken;
      } while (nextToken);
    },
    create: write('POST'),
    update: write('PUT'),
    delete: (profileId, resource, ids) =>
      mutate(
        profileId,
        resource,
        'POST',
        `/sp/${resource}/delete`,
        { [SP_RESOURCES[resource].idFilter]: { include: ids } },
        false,
      ),
  };
}
