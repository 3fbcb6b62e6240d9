import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call } from '../support/mcp.js';
import { adsChanges, listingSubmissions } from '../support/marketplace.js';
import { eventually, type Spawned } from '../support/processes.js';
import { startConnectedService, type ConnectedService } from '../support/service.js';

// Writes through the service as `npm start` runs it: queue_mutations and patch_listing on /mcp,
// the worker sends each request to the built-in simulator, get_mutation shows the answer, and
// the simulator's own record shows each change applied once. The worker's sweep runs only at
// start-up and then every ten minutes, so only the dispatch job admission adds can send them.
//
// Timing on a 2-core machine: the new account's listings and campaigns are read model rows
// 50-80 s after it connects (its syncs queue behind the demo account's year of data); the
// receipts' projection keeps up meanwhile (each projection follows the log on its own), so both
// requests went out within half a second of admission in CI (25-50 s when one loop applied
// every projection in turn).

const US = 'ATVPDKIKX0DER';
const SENT_WITHIN_MS = 30_000;

type Row = Record<string, any>;

describe('mutations end to end (npm start)', function () {
  this.timeout(300_000);
  let e2e: ConnectedService;
  let service: Spawned;
  let simulator: string;
  let client: Client;
  let accountId: string;

  before(async () => {
    // the worker's sweep runs at start-up and then every ten minutes: only admission's jobs can send
    e2e = await startConnectedService('mutations', { DISPATCH_SWEEP_MS: '600000' });
    ({ service, simulator, client, account: accountId } = e2e);
  });
  after(() => e2e?.stop());

  /** The rows a read tool returns once the account's first syncs are projected. */
  const rowsOf = (tool: string, args: Row, key: string) =>
    eventually(
      async () => {
        const out = await call(client, tool, args);
        if (out.isError) throw new Error(`${tool} refused: ${JSON.stringify(out.structuredContent)}`);
        const rows = out.structuredContent[key] as Row[];
        return rows.length ? rows : undefined;
      },
      `${tool} to return the account's rows`,
      150_000,
    );

  /** The receipt as get_mutation shows it once submitted (the projector may lag its events). */
  const submitted = (id: string) =>
    eventually(
      async () => {
        const r = (await call(client, 'get_mutation', { id })).structuredContent;
        return r.status === 'submitted' ? r : undefined;
      },
      `receipt ${id} to be submitted`,
      90_000,
    );

  it('sends a campaign update and a listing price patch as soon as they are admitted; the simulator applied each once', async () => {
    const listing = (await rowsOf('list_listings', { marketplace_id: US, limit: 50 }, 'listings')).find(
      (l) => l.status === 'BUYABLE',
    )!;
    const campaign = (await rowsOf('list_ads_entities', { target_type: 'Campaign', limit: 50 }, 'rows')).find(
      (c) => c.state === 'enabled',
    )!;
    expect([listing.account_id, campaign.account_id]).to.deep.equal([accountId, accountId]);
    const campaignId = campaign.data.campaignId as string;
    const patch = {
      op: 'replace',
      path: '/attributes/purchasable_offer',
      value: [
        {
          marketplace_id: US,
          currency: listing.currency,
          audience: 'ALL',
          our_price: [{ schedule: [{ value_with_tax: 23.45 }] }],
        },
      ],
    };

    const queued = (
      await call(client, 'queue_mutations', {
        mutations: [
          { target: { type: campaign.type, id: campaign.id }, action: 'update', payload: { state: 'PAUSED' } },
        ],
      })
    ).structuredContent.results[0].receipt;
    const patched = (await call(client, 'patch_listing', { sku: listing.sku, marketplace_id: US, patches: [patch] }))
      .structuredContent.receipt;
    expect([queued.status, patched.status]).to.deep.equal(['queued', 'queued']);

    // the simulator's record: each request applied once, long before any sweep
    const campaignChanges = async () =>
      (await adsChanges(simulator)).filter((x) => x.resource === 'campaigns' && x.id === campaignId);
    const listingPatches = async () =>
      (await listingSubmissions(simulator)).filter((s) => s.sku === listing.sku && s.marketplaceId === US);
    const applied = await eventually(
      async () => {
        const [changes, submissions] = [await campaignChanges(), await listingPatches()];
        return changes.length && submissions.length ? { changes, submissions } : undefined;
      },
      'the simulator to apply both requests',
      SENT_WITHIN_MS,
    ).catch((err: Error) => {
      // what the service said of these receipts and of dispatch, to tell a lagging projector from a lost job
      const said = service.logs.filter(
        (l) => [queued.id, patched.id].includes(l.receipt_id) || (typeof l.level === 'number' && l.level >= 40),
      );
      throw new Error(
        `${err.message}; the service's warnings and these receipts' log: ${JSON.stringify(said.slice(-10))}`,
      );
    });
    expect(applied.changes.map((x) => [x.profileId, x.operation, (x.after as Row).state])).to.deep.equal([
      [String(campaign.provider_profile_id), 'update', 'PAUSED'],
    ]);
    expect(applied.submissions.map((s) => [s.mode, s.status, s.productType, s.patches])).to.deep.equal([
      ['APPLY', 'ACCEPTED', 'PRODUCT', [patch]],
    ]);

    const [c, l] = await Promise.all([submitted(queued.id), submitted(patched.id)]);
    for (const r of [c, l]) {
      expect(r).to.include({ outcome: 'accepted', accepted: true, attempts: 1 });
      expect(r.request_id).to.be.a('string').and.not.equal('');
      expect(r.history.map((h: Row) => h.type)).to.deep.equal([
        'MutationAdmitted',
        'MutationDispatchStarted',
        'MutationSubmitted',
      ]);
    }
    expect(c.http_status).to.equal(207);
    expect(c.response).to.deep.equal({ campaigns: { success: [{ index: 0, campaignId }], error: [] } });
    expect(l.http_status).to.equal(200);
    expect(l.submission_id).to.equal(applied.submissions[0]!.submissionId);
    // still once each, and every notice reached the queue
    expect(await campaignChanges()).to.have.length(1);
    expect(await listingPatches()).to.have.length(1);
    expect(
      service.logs.filter((r) => r.msg === 'could not enqueue dispatch; the sweep will pick the receipts up'),
    ).to.deep.equal([]);
  });
});
