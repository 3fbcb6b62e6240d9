import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { pino } from 'pino';
import { createDb, type Knex } from '../../src/infra/db.js';
import type { ReportsClient } from '../../src/marketplace/clients/reports.js';
import { MAX_REPORT_REQUESTS } from '../../src/domain/observation/report-request.js';
import type { SyncDeps } from '../../src/workers/sync/job.js';
import { ReportsGivenUp, runReports, type ReportPlan } from '../../src/workers/sync/reports.js';

// A report the marketplace keeps ending FATAL, beside one it is still making: the run gives the
// first up and fails with ReportsGivenUp, so the worker retries it with its backoff (minutes),
// not with the seconds-long waits for the other, which would ask for the failing one afresh at
// each. The other's request stays, for the retry to read on.

describe('report syncs: a report given up while another is still being made', function () {
  this.timeout(30_000);
  let db: Knex;

  before(() => {
    db = createDb(process.env.DATABASE_URL!);
  });
  after(async () => {
    await db.destroy();
  });

  it('fails the run with ReportsGivenUp, keeping the other request', async () => {
    const account_id = randomUUID();
    let made = 0;
    const client = {
      getReport: async (id: string) => ({
        reportId: id,
        processingStatus: id.startsWith('fatal') ? 'FATAL' : 'IN_PROGRESS',
        processingStartTime: '2026-03-10T09:00:00Z',
      }),
    } as unknown as ReportsClient;
    const plan = (key: string): ReportPlan => ({
      key,
      api: 'reports',
      create: async () => `${key}-${++made}`,
      handle: async () => 0,
    });
    const deps = { db, now: () => new Date(), logger: pino({ level: 'silent' }) } as unknown as SyncDeps;

    const failed = await runReports(deps, account_id, client, [plan('fatal'), plan('slow')]).then(
      () => expect.fail('neither report is done'),
      (err: unknown) => err,
    );
    expect(failed).to.be.instanceOf(ReportsGivenUp);
    expect((failed as Error).message).to.contain('fatal (FATAL at the marketplace, after 3 requests)');
    expect(made, 'the failing one asked for three times, the other once').to.equal(MAX_REPORT_REQUESTS + 1);
    const rows = await db
      .withSchema('sync')
      .table('report_requests')
      .where({ account_id })
      .select('request_key', 'provider_id');
    expect(rows).to.deep.equal([{ request_key: 'slow', provider_id: 'slow-2' }]);
  });
});
