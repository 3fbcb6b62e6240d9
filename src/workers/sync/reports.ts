import type { Knex } from 'knex';
import { createReportsClient, type ReportsClient } from '../../marketplace/clients/reports.js';
import { MarketplaceError } from '../../marketplace/clients/errors.js';
import { nextReportStep, type ReportAnswer } from '../../domain/observation/report-request.js';
import { READ_MODEL_SCHEMA } from '../../projections/projection.js';
import { connectionCredentials } from '../credentials.js';
import { syncWith, type SyncDeps, type SyncJobDefinition } from './job.js';
import { forEachAtOnce } from './scope.js';

// Report-based syncs never wait for a report inside a job: a run creates the reports it needs
// (or finds the ones an earlier attempt created, kept in `sync.report_requests`), checks
// them a few times over a few seconds (a few at once: REPORTS_AT_ONCE), handles those that are
// DONE, and, if any is still queued or in progress, fails with ReportNotReady: the sync worker
// puts the job back in the delayed set to run again later. A report handled is forgotten; a request older than a day is
// created again. A request the marketplace forgot, cancelled before it began or ended FATAL is
// created afresh at once, its row saying how often and why (nextReportStep); one given up
// fails the run with ReportsGivenUp, which the sync worker retries with backoff.

export class ReportNotReady extends Error {
  override readonly name = 'ReportNotReady';
}

export class ReportsGivenUp extends Error {
  override readonly name = 'ReportsGivenUp';
}

/** One report (Reports API) or query (Data Kiosk) a sync needs, and what to do with it. */
export interface ReportPlan {
  /** Unique per account and stable across attempts, e.g. `seller_economics/<marketplace>/<from>/<to>`. */
  key: string;
  api: 'reports' | 'dataKiosk';
  /** A Reports API document's format: JSON (the default) or a tab-separated flat file. */
  document?: 'json' | 'flatFile';
  create(client: ReportsClient): Promise<string>;
  /** The document's content (parsed JSON; a flat file's records by column name, in batches as an
   * AsyncIterable, read as they are parsed; for Data Kiosk,
   * its records), or null when the report has no data (CANCELLED, or a query DONE without a
   * document). Returns events recorded. */
  handle(content: unknown | null): Promise<number>;
}

/** Pauses between status rounds within one attempt: short, so a job never holds a worker long. */
const ROUNDS_MS = [0, 150, 300, 600, 1200];
const STALE_AFTER_MS = 86_400_000;
/** Reports checked or handled at once: one at a time, a first sync's hundreds of reports
 * (a year of weekly search-query windows per marketplace) wait on each other's round trips and
 * appends; a few at once overlap them while the marketplace's throttling (429, Retry-After, which
 * the client honours) still sets the pace. Each handle gathers at most one window's rows. */
export const REPORTS_AT_ONCE = 4;

/** Per database (a process may serve several: tests do), the table once made. */
const tableReady = new WeakMap<Knex, Promise<void>>();
function ensureTable(db: Knex): Promise<void> {
  let ready = tableReady.get(db);
  if (!ready) {
    ready = db
      .transaction(async (trx) => {
        await trx.raw('select pg_advisory_xact_lock(hashtext(?))', ['sync.report_requests']);
        await trx.raw('create schema if not exists sync');
        await trx.raw(`create table if not exists sync.report_requests (
        account_id uuid not null,
        request_key text not null,
        provider_id text not null,
        created_at timestamptz not null,
        primary key (account_id, request_key))`);
        // how often the report was asked for in a row, and why it was asked for again
        await trx.raw(`alter table sync.report_requests
        add column if not exists requests int not null default 1,
        add column if not exists renewed_because text`);
      })
      .catch((error: unknown) => {
        tableReady.delete(db);
        throw error;
      });
    tableReady.set(db, ready);
  }
  return ready;
}

export function reportsClientFor(deps: SyncDeps, refreshToken: string): ReportsClient {
  return createReportsClient({ endpoint: deps.endpoints.sellingApiUrl, lwa: deps.lwa, refreshToken });
}

interface OpenRequest {
  provider_id: string;
  requests: number;
}

/** Runs the plans as described above; returns the events recorded by the handled ones. */
export async function runReports(
  deps: SyncDeps,
  account_id: string,
  client: ReportsClient,
  plans: readonly ReportPlan[],
): Promise<{ recorded: number }> {
  await ensureTable(deps.db);
  const table = () => deps.db.withSchema('sync').table('report_requests');
  const known = new Map<string, OpenRequest & { created_at: Date }>(
    (await table().where({ account_id }).select('request_key', 'provider_id', 'created_at', 'requests')).map(
      (r: OpenRequest & { request_key: string; created_at: Date }) => [r.request_key, r],
    ),
  );
  const open = new Map<ReportPlan, OpenRequest>();
  const request = async (plan: ReportPlan, requests: number, renewed_because: string | null) => {
    const provider_id = await plan.create(client);
    await table()
      .insert({ account_id, request_key: plan.key, provider_id, created_at: deps.now(), requests, renewed_because })
      .onConflict(['account_id', 'request_key'])
      .merge();
    open.set(plan, { provider_id, requests });
  };
  const forget = async (plan: ReportPlan) => {
    await table().where({ account_id, request_key: plan.key }).delete();
    open.delete(plan);
  };
  const started = performance.now();
  // created one at a time: the first call of a run may renew the access token for the others
  for (const plan of plans) {
    const earlier = known.get(plan.key);
    if (earlier && deps.now().getTime() - earlier.created_at.getTime() < STALE_AFTER_MS) open.set(plan, earlier);
    else await request(plan, 1, null);
  }

  let recorded = 0;
  let handlingMs = 0;
  const givenUp: string[] = [];
  let rounds = 0;
  for (const pause of ROUNDS_MS) {
    if (open.size === 0) break;
    rounds++;
    if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
    await forEachAtOnce([...open], REPORTS_AT_ONCE, async ([plan, { provider_id, requests }]) => {
      let step = nextReportStep(plan.api, await answerOf(client, plan.api, provider_id), requests);
      let content: unknown = null;
      if (step.step === 'read') {
        const read = await download(client, plan, step.documentId);
        // a document expired (or forgotten) before it was read is a report to ask for again
        if (read.found) content = read.content;
        else step = nextReportStep(plan.api, { known: false }, requests);
      }
      const log = { account_id, report: plan.key, id: provider_id, requests };
      if (step.step === 'wait') return;
      if (step.step === 'request_again') {
        deps.logger.warn({ ...log, reason: step.reason }, 'report requested afresh');
        await request(plan, requests + 1, step.reason);
        return;
      }
      if (step.step === 'give_up') {
        deps.logger.warn({ ...log, reason: step.reason }, 'report given up; the sync tries again');
        givenUp.push(`${plan.key} (${step.reason})`);
      } else {
        const handling = performance.now();
        // awaited before the sum is read: `recorded += await` would add to a stale sum
        const handled = await plan.handle(content);
        recorded += handled;
        handlingMs += performance.now() - handling;
      }
      await forget(plan);
    });
  }
  // where a run's time went: creating and checking reports (the marketplace's) against handling
  // them (ours: parsing and appending; summed over those handled at once)
  deps.logger.info(
    {
      account_id,
      reports: plans.length,
      pending: open.size,
      rounds,
      ms: Math.round(performance.now() - started),
      handling_ms: Math.round(handlingMs),
    },
    'reports run',
  );
  // A report given up fails the run even while others are still being made: the worker's retry,
  // backing off to minutes, asks for it afresh, where the waits for the others (seconds) would ask
  // for it again at each one. The others' requests stay, and the retry reads them on.
  if (givenUp.length > 0)
    throw new ReportsGivenUp(
      `reports given up: ${givenUp.join('; ')}${open.size > 0 ? ` (${open.size} of ${plans.length} others not done yet)` : ''}`,
    );
  if (open.size > 0)
    throw new ReportNotReady(
      `${open.size} of ${plans.length} reports not done yet (${[...open.keys()]
        .slice(0, 3)
        .map((p) => p.key)
        .join(', ')})`,
    );
  return { recorded };
}

const notFound = (err: unknown): boolean => err instanceof MarketplaceError && err.status === 404;

async function answerOf(client: ReportsClient, api: ReportPlan['api'], id: string): Promise<ReportAnswer> {
  try {
    const {
      processingStatus: status,
      processingStartTime,
      ...rest
    } = api === 'reports'
      ? await client.getReport(id).then((r) => ({ ...r, documentId: r.reportDocumentId }))
      : await client.getQuery(id).then((q) => ({ ...q, documentId: q.dataDocumentId }));
    const documentId = status === 'DONE' ? rest.documentId : undefined;
    return { known: true, status, started: processingStartTime !== undefined, ...(documentId ? { documentId } : {}) };
  } catch (err) {
    if (notFound(err)) return { known: false };
    throw err;
  }
}

async function download(
  client: ReportsClient,
  plan: ReportPlan,
  documentId: string,
): Promise<{ found: true; content: unknown } | { found: false }> {
  try {
    if (plan.api === 'dataKiosk')
      return { found: true, content: await client.downloadQueryDocument(await client.getQueryDocument(documentId)) };
    const document = await client.getReportDocument(documentId);
    return {
      found: true,
      content:
        plan.document === 'flatFile' ? await client.downloadFlatFile(document) : await client.downloadReport(document),
    };
  } catch (err) {
    if (notFound(err)) return { found: false };
    throw err;
  }
}

/** What a report sync needs to know about the account: its kind and marketplaces (those it
 * participates in, or, without a selling connection, its advertising profiles'); null when
 * the read model has no such account yet. */
async function accountForReports(
  db: Knex,
  account_id: string,
): Promise<{ entity_type: string; marketplaces: string[]; connection: { credentials?: string | null } | null } | null> {
  const rm = () => db.withSchema(READ_MODEL_SCHEMA);
  const row = await rm().table('accounts').where({ account_id }).first('entity_type', 'selling', 'ads');
  if (!row) return null;
  const participating = ((row.selling?.marketplaces ?? []) as { marketplace_id: string; participating: boolean }[])
    .filter((m) => m.participating)
    .map((m) => m.marketplace_id);
  const marketplaces = row.selling
    ? participating
    : (await rm().table('advertising_profiles').where({ account_id }).distinct('marketplace_id')).map(
        (r: { marketplace_id: string }) => r.marketplace_id,
      );
  return {
    entity_type: row.entity_type,
    marketplaces: [...new Set(marketplaces)].sort(),
    connection: row.selling ?? row.ads,
  };
}

/** The account's marketplaces and selling refresh token when it is an `entityType` with one
 * and its connection is active; null when there is nothing to sync. Throws while the read model has no such account yet, so
 * the queue retries. */
async function reportsAccount(
  deps: SyncDeps,
  account_id: string,
  entityType: 'seller' | 'vendor',
): Promise<{ marketplaces: string[]; token: string } | null> {
  const account = await accountForReports(deps.db, account_id);
  if (!account) throw new Error(`account ${account_id} is not in the read model yet`);
  // the selling token of the credential set the account was connected with
  const token = (await connectionCredentials(deps.credentials, account.connection)).selling_refresh_token;
  const active = !(account.connection as { inactive?: unknown } | null)?.inactive;
  return account.entity_type === entityType && active && token ? { marketplaces: account.marketplaces, token } : null;
}

/** A reports sync: for an account of `entityType` with a selling token, the plans its
 * marketplaces need, run as above; other accounts record nothing. */
export const reportsJob = (job: {
  name: string;
  everyMs: number;
  entityType: 'seller' | 'vendor';
  plans: (deps: SyncDeps, account_id: string, marketplaces: string[]) => Promise<ReportPlan[]> | ReportPlan[];
}): SyncJobDefinition =>
  syncWith((deps, account_id) => reportsAccount(deps, account_id, job.entityType), {
    name: job.name,
    everyMs: job.everyMs,
    async run(deps, account_id, account) {
      const plans = await job.plans(deps, account_id, account.marketplaces);
      return runReports(deps, account_id, reportsClientFor(deps, account.token), plans);
    },
  });

/** The latest day (YYYY-MM-DD) whose scope `<prefix>/<day>` was read completely, if any. */
export async function latestCompleteDay(
  db: Knex,
  account_id: string,
  dataset: string,
  prefix: string,
): Promise<string | null> {
  const row = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table('observed_scopes')
    .where({ account_id, dataset })
    .andWhere('scope', 'like', `${prefix}/%`)
    .max<{ scope: string | null }>('scope as scope')
    .first();
  return row?.scope ? row.scope.slice(prefix.length + 1) : null;
}

const DAY_MS = 86_400_000;
export const dayOfDate = (date: string): number => Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
export const dateOfDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);
export const today = (deps: SyncDeps): number => Math.floor(deps.now().getTime() / DAY_MS);

/** First run: a year back; later runs: from the day after the latest complete one, and never
 * less than the trailing `restateDays` (the days that may still restate). */
export function syncFrom(latest: string | null, lastDay: number, restateDays: number): number {
  return latest === null ? lastDay - 364 : Math.min(dayOfDate(latest) + 1, lastDay - restateDays + 1);
}

/** Rows cut into pages of at most `size`; no rows, no pages. */
export function pagesOf<T>(rows: readonly T[], size: number): T[][] {
  const pages: T[][] = [];
  for (let i = 0; i < rows.length; i += size) pages.push(rows.slice(i, i + size));
  return pages;
}

export async function* asPages(pages: readonly unknown[][]): AsyncIterable<unknown[]> {
  yield* pages;
}
