import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { pino } from 'pino';
import { createDb, type Knex } from '../../src/infra/db.js';
import type { ReportsClient } from '../../src/marketplace/clients/reports.js';
import type { SyncDeps } from '../../src/workers/sync/job.js';
import { runReports, type ReportPlan } from '../../src/workers/sync/reports.js';

// A run handles several finished reports at once (a first sync has hundreds): no more than a few
// at a time, and what each recorded adds up, however their handling interleaves.

describe('report syncs: reports handled a few at once', function () {
  this.timeout(30_000);
  let db: Knex;

  before(() => {
    db = createDb(process.env.DATABASE_URL!);
  });
  after(async () => {
    await db.destroy();
  });

  it('overlaps their handling, at most four at once, and sums what each recorded', async () => {
    const account_id = randomUUID();
    const client = {
      getReport: async (id: string) => ({
        reportId: id,
        processingStatus: 'DONE',
        processingStartTime: '2026-03-10T09:00:00Z',
        reportDocumentId: `doc-${id}`,
      }),
      getReportDocument: async (id: string) => ({ reportDocumentId: id, url: `https://example.test/${id}` }),
      downloadReport: async () => ({}),
    } as unknown as ReportsClient;
    let running = 0;
    let most = 0;
    const plan = (key: string, events: number): ReportPlan => ({
      key,
      api: 'reports',
      create: async () => `${key}-id`,
      handle: async () => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running--;
        return events;
      },
    });
    const plans = Array.from({ length: 12 }, (_, i) => plan(`report-${i}`, i + 1));
    const deps = { db, now: () => new Date(), logger: pino({ level: 'silent' }) } as unknown as SyncDeps;

    const { recorded } = await runReports(deps, account_id, client, plans);
    expect(recorded, '1 + 2 + … + 12').to.equal(78);
    expect(most).to.equal(4);
    expect(await db.withSchema('sync').table('report_requests').where({ account_id })).to.deep.equal([]);
  });
});
