import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { stringify } from 'csv-stringify';
import { z } from 'zod';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, RawServerDefault } from 'fastify';
import type { Knex } from '../infra/db.js';
import { QUERY_DATA_SCHEMA } from '../projections/views/migrate.js';
import { type Authenticate, bearerToken, refuseScope, refuseToken } from './auth.js';
import { missingScopes, READ_SCOPE } from '../domain/user/scopes.js';
import type { Endpoint } from './tool.js';

// Large query_data results become a gzip-compressed CSV kept in PostgreSQL for an hour and
// served at /exports/<id>.csv.gz, with the column definitions beside it at
// /exports/<id>.columns.json. The id is 192 random bits; only its sha256 is stored. On
// /mcp the download also needs a bearer token of the same user, of either kind /mcp takes, with
// `mcp:read` (the exports belong to the /mcp resource); on the demo endpoint the unguessable,
// expiring URL is the only credential.

export const EXPORT_TTL_SECONDS = 3600;

/** A result column as query_data states it (and the export's columns.json lists it). */
export const exportColumnSchema = z.object({
  name: z.string(),
  type: z.string().describe('the PostgreSQL type, as format_type prints it'),
});
export type ExportColumn = z.output<typeof exportColumnSchema>;

/** Where a saved export is downloaded (saveExport's answer), as query_data states it. */
export const savedExportShape = {
  download_url: z
    .string()
    .describe("the gzip CSV, relative to this service; on /mcp it needs the caller's bearer token"),
  columns_url: z.string().describe('the column definitions as JSON, relative to this service'),
  expires_at: z.iso.datetime().describe('when both links expire (an hour after the query)'),
};
export type SavedExport = z.output<z.ZodObject<typeof savedExportShape>>;

const TABLE = `${QUERY_DATA_SCHEMA}.exports`;
const FILE = /^([A-Za-z0-9_-]{32})\.(csv\.gz|columns\.json)$/;

const hashId = (id: string) => createHash('sha256').update(id).digest('hex');

/** CSV with a header row; SQL NULL is an empty field, an empty string is `""`. */
export async function gzipCsv(
  columns: readonly ExportColumn[],
  rows: ReadonlyArray<ReadonlyArray<string | null>>,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await pipeline(
    Readable.from(rows),
    stringify({ header: true, columns: columns.map((c) => c.name), quoted_match: [/^$/] }),
    createGzip(),
    async (source: AsyncIterable<Buffer>) => {
      for await (const chunk of source) chunks.push(chunk);
    },
  );
  return Buffer.concat(chunks);
}

export async function saveExport(
  db: Knex,
  owner: { userId: string; endpoint: Endpoint },
  columns: readonly ExportColumn[],
  rows: ReadonlyArray<ReadonlyArray<string | null>>,
): Promise<SavedExport> {
  const body = await gzipCsv(columns, rows);
  const id = randomBytes(24).toString('base64url');
  await db(TABLE).where('expires_at', '<', db.fn.now()).delete();
  const [saved] = await db(TABLE)
    .insert({
      id_hash: hashId(id),
      user_id: owner.userId,
      endpoint: owner.endpoint,
      columns: JSON.stringify(columns),
      row_count: rows.length,
      body,
      expires_at: db.raw(`now() + make_interval(secs => ?)`, [EXPORT_TTL_SECONDS]),
    })
    .returning<Array<{ expires_at: Date }>>('expires_at');
  return {
    download_url: `/exports/${id}.csv.gz`,
    columns_url: `/exports/${id}.columns.json`,
    expires_at: saved!.expires_at.toISOString(),
  };
}

/** GET /exports/<id>.csv.gz and /exports/<id>.columns.json */
export function registerExportRoutes<L extends FastifyBaseLogger>(
  app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, L>,
  deps: { db: Knex; authenticate: Authenticate; baseUrl: (req: FastifyRequest) => string },
): void {
  app.get<{ Params: { file: string } }>('/exports/:file', async (req, reply) => {
    const notFound = () =>
      reply.code(404).send({ error: 'not_found', error_description: 'no such export, or it expired' });
    const match = FILE.exec(req.params.file);
    if (!match) return notFound();
    const [, id, kind] = match;
    const token = bearerToken(req.headers.authorization);
    const user = token ? await deps.authenticate(token) : null;
    const challenge = (tokenGiven: boolean) => refuse(reply, deps.baseUrl(req), tokenGiven);
    if (token !== undefined && !user) return challenge(true);
    const row = await deps
      .db(TABLE)
      .where({ id_hash: hashId(id!) })
      .where('expires_at', '>', deps.db.fn.now())
      .first<{ user_id: string; endpoint: Endpoint; columns: ExportColumn[]; body: Buffer } | undefined>(
        'user_id',
        'endpoint',
        'columns',
        kind === 'csv.gz' ? 'body' : deps.db.raw('null as body'),
      );
    if (!row) return notFound();
    if (row.endpoint === 'mcp') {
      if (!user) return challenge(false);
      // another user's export reads as missing
      if (user.userId !== row.user_id) return notFound();
      const lacking = missingScopes(user.scopes, [READ_SCOPE]);
      if (lacking.length) return refuseScope(reply, deps.baseUrl(req), { lacking, scope: READ_SCOPE });
    }
    reply.header('cache-control', 'private, no-store');
    if (kind === 'columns.json') return reply.send({ columns: row.columns });
    return reply
      .type('application/gzip')
      .header('content-disposition', `attachment; filename="query-${id!.slice(0, 8)}.csv.gz"`)
      .send(row.body);
  });
}

function refuse(reply: FastifyReply, baseUrl: string, tokenGiven: boolean) {
  return refuseToken(reply, baseUrl, {
    tokenGiven,
    needed: 'this export needs the bearer token of the user who made it',
  });
}
