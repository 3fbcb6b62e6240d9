import { expect } from 'chai';
import type { Knex } from 'knex';
import { executeMutationCommand } from '../../src/commands/mutation/execute.js';
import { newId } from '../../src/domain/shared/ids.js';
import { createEventStore, type EventStore } from '../../src/eventstore/index.js';
import { createDb } from '../../src/infra/db.js';
import { migrate } from '../../src/infra/migrate.js';
import { migrationSteps } from '../../src/migrations.js';
import { accountsProjection } from '../../src/projections/accounts/projection.js';
import { mutationsProjection } from '../../src/projections/mutations/projection.js';
import { Projector } from '../../src/projections/projector.js';
import { migrateViews } from '../../src/projections/views/migrate.js';
import { viewDefinitions } from '../../src/projections/views/registry.js';
import { withQueryRole } from '../../src/projections/views/run.js';
import { project } from '../support/seed.js';

// v_listing_mutations (spec 2.15) over receipts recorded through the command handler: one row
// per listing mutation with the SKU and marketplace resolved at admission, submission id and
// time once submitted; advertising receipts and other accounts' rows stay out.

describe('v_listing_mutations', function () {
  this.timeout(60_000);
  let db: Knex;
  let store: EventStore;
  const seller = newId();
  const other = newId();
  const ids = { queued: newId(), submitted: newId(), campaign: newId(), foreign: newId() };

  before(async () => {
    db = createDb(process.env.DATABASE_URL!);
    store = createEventStore({ DATABASE_URL: process.env.DATABASE_URL! });
    await migrate(db, migrationSteps([accountsProjection, mutationsProjection], { eventStoreInPostgres: true }));
    await db.transaction((trx) => migrateViews(trx, viewDefinitions));
    await project(db, [
      {
        type: 'AccountRegistered',
        data: { account_id: seller, user_id: newId(), name: 'Seller', entity_type: 'seller' },
      },
      {
        type: 'AccountRegistered',
        data: { account_id: other, user_id: newId(), name: 'Other', entity_type: 'seller' },
      },
    ]);
    const ctx = { store, metadata: { actor: { kind: 'worker' as const, id: 'test' } } };
    const patch = {
      productType: 'PRODUCT',
      patches: [
        {
          op: 'replace',
          path: '/attributes/item_name',
          value: [{ value: 'New name', marketplace_id: 'ATVPDKIKX0DER' }],
        },
      ],
    };
    const admit = (
      receipt_id: string,
      account_id: string,
      target: { type: 'Listing' | 'Campaign'; id: string },
      provider: Record<string, string>,
      payload: Record<string, unknown>,
      created_at: string,
    ) =>
      executeMutationCommand(ctx, {
        type: 'AdmitMutation',
        receipt_id,
        account_id,
        target,
        provider,
        action: 'update',
        payload,
        idempotency: null,
        created_at,
        blocked: null,
      });
    await admit(
      ids.queued,
      seller,
      { type: 'Listing', id: newId() },
      { sku: 'SKU-1', marketplaceId: 'ATVPDKIKX0DER' },
      patch,
      '2026-11-20T10:00:00.000Z',
    );
    await admit(
      ids.submitted,
      seller,
      { type: 'Listing', id: newId() },
      { sku: 'SKU-2', marketplaceId: 'A1VC38T7YXB528' },
      patch,
      '2026-11-20T10:01:00.000Z',
    );
    await executeMutationCommand(ctx, {
      type: 'StartDispatch',
      receipt_id: ids.submitted,
      started_at: '2026-11-20T10:02:00.000Z',
    });
    await executeMutationCommand(ctx, {
      type: 'RecordSubmission',
      receipt_id: ids.submitted,
      submission_id: 'sub-42',
      accepted: true,
      created: null,
      http_status: 200,
      response: { sku: 'SKU-2', status: 'ACCEPTED', submissionId: 'sub-42', issues: [] },
      request_id: 'req-1',
      error: null,
      recorded_at: '2026-11-20T10:02:01.000Z',
    });
    await admit(
      ids.campaign,
      seller,
      { type: 'Campaign', id: newId() },
      { profileId: '3001', campaignId: '111' },
      { state: 'PAUSED' },
      '2026-11-20T10:03:00.000Z',
    );
    await admit(
      ids.foreign,
      other,
      { type: 'Listing', id: newId() },
      { sku: 'SKU-X', marketplaceId: 'ATVPDKIKX0DER' },
      patch,
      '2026-11-20T10:04:00.000Z',
    );
    const projector = new Projector(db, store, [mutationsProjection], { pollMs: 20 });
    projector.start();
    await projector.whenCaughtUp();
    await projector.stop();
  });
  after(async () => {
    await store.close();
    await db.destroy();
  });

  it("one row per listing mutation of the caller's accounts, with admission, submission and payload", async () => {
    const result = await withQueryRole(db, [seller], (run) =>
      run('select * from v_listing_mutations order by created_at'),
    );
    expect(result.columns.map((c) => c.name)).to.deep.equal(
      viewDefinitions.find((v) => v.name === 'v_listing_mutations')!.columns.map((c) => c.name),
    );
    const rows = result.rows.map((r) => Object.fromEntries(result.columns.map((c, i) => [c.name, r[i]])));
    expect(rows.map((r) => r.mutation_id)).to.deep.equal([ids.queued, ids.submitted]);
    expect(rows[0]).to.include({
      sku: 'SKU-1',
      marketplace_id: 'ATVPDKIKX0DER',
      status: 'queued',
      submission_id: null,
      submitted_at: null,
    });
    expect(rows[1]).to.include({
      sku: 'SKU-2',
      marketplace_id: 'A1VC38T7YXB528',
      status: 'submitted',
      outcome: 'accepted',
      submission_id: 'sub-42',
    });
    expect(new Date(String(rows[1]!.submitted_at)).toISOString()).to.equal('2026-11-20T10:02:01.000Z');
    expect(JSON.parse(String(rows[1]!.payload)).patches[0].path).to.equal('/attributes/item_name');
  });
});
