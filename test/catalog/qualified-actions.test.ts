import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { acquireCatalog } from '../../src/catalog/acquire.js';
import { findOperation } from '../../src/catalog/queries.js';
import { createAutomation } from '../../src/commands/automation/lifecycle.js';
import { adsEntityId, type AdsEntityKind } from '../../src/domain/observation/ids.js';
import type { SpResource } from '../../src/marketplace/clients/ads-sp-types.js';
import { createAdsClient } from '../../src/marketplace/clients/index.js';
import { loadAccounts, type ProfileView } from '../../src/projections/accounts/queries.js';
import { admissionProjection } from '../../src/projections/admission/projection.js';
import { automationsProjection } from '../../src/projections/automations/projection.js';
import { automationStoreProjection } from '../../src/projections/automation-store/projection.js';
import { webhooksProjection } from '../../src/projections/webhook/projection.js';
import { findAutomation } from '../../src/projections/automations/queries.js';
import { adsProjection } from '../../src/projections/observed/ads.js';
import { fbaInventoryProjection } from '../../src/projections/observed/inventory.js';
import { listingsProjection } from '../../src/projections/observed/listings.js';
import { runAutomation } from '../../src/runtime/run.js';
import { createSandbox, type Sandbox } from '../../src/runtime/sandbox/index.js';
import { selectableStreamType } from '../../src/domain/stream/types.js';
import { cannedSample } from '../../src/mcp/run-event.js';
import { marketplaceRequest } from '../../src/workers/dispatch/requests.js';
import { adsEntitiesSync } from '../../src/workers/sync/ads-entities.js';
import { ADS_TOKEN } from '../support/marketplace.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import { startHarness, type Harness } from '../support/observed.js';

// Qualified catalog actions in queue_mutations and operation_dependencies of automations, over
// MCP: the pinned revision, the idempotency key, the operation's review and target type, the
// native request schema; what is admitted is the spec 4.8 receipt the dispatcher sends as the
// native item it was given.

type Raw = Record<string, any>;
const SP = 'ads_api:sponsored-products:3.0';
const UPDATE_CAMPAIGNS = `${SP}:UpdateSponsoredProductsCampaigns`;
const CREATE_KEYWORDS = `${SP}:CreateSponsoredProductsKeywords`;
const CREATE_CLAUSES = `${SP}:CreateSponsoredProductsTargetingClauses`;
const DELETE_AD_GROUPS = `${SP}:DeleteSponsoredProductsAdGroups`;

describe('qualified catalog actions and operation_dependencies', function () {
  this.timeout(180_000);
  let h: Harness;
  let mcp: McpServing;
  let ada: Client;
  let revision: string;
  let account: string;
  let profile: ProfileView;
  let campaign: Raw;
  let adGroup: Raw;
  const user = randomUUID();

  const sp = async (resource: SpResource): Promise<Raw[]> => {
    const client = createAdsClient({
      endpoint: h.simulator.endpoints().adsApiUrl,
      lwa: h.deps('').lwa,
      refreshToken: ADS_TOKEN,
    });
    return (await client.sp.list(profile.provider_profile_id, resource, { stateFilter: { include: ['ENABLED'] } }))
      .items as Raw[];
  };
  const localId = (kind: AdsEntityKind, providerId: string) =>
    adsEntityId(kind, account, profile.provider_profile_id, providerId);
  const campaignTarget = () => ({ type: 'Campaign', id: localId('campaign', campaign.campaignId) });
  const adGroupTarget = () => ({ type: 'AdGroup', id: localId('ad_group', adGroup.adGroupId) });
  const queue = (args: Raw) => call(ada, 'queue_mutations', args);
  const qualified = (mutations: Raw[], extra: Raw = {}) =>
    queue({ mutations, idempotency_key: randomUUID(), catalog_revision: revision, ...extra });
  const resultOf = async (mutation: Raw) => {
    const answer = await qualified([mutation]);
    expect(answer.isError, JSON.stringify(answer.structuredContent)).to.equal(undefined);
    return answer.structuredContent.results[0] as Raw;
  };
  const errorOf = async (args: Raw) => {
    const answer = await call(ada, args.tool ?? 'queue_mutations', args.arguments);
    expect(answer.isError, JSON.stringify(answer.structuredContent)).to.equal(true);
    return answer.structuredContent as Raw;
  };

  before(async () => {
    h = await startHarness(
      [
        listingsProjection,
        fbaInventoryProjection,
        adsProjection,
        admissionProjection,
        automationsProjection,
        // what a live run reads beside its context: the account's webhooks, the automation's store
        webhooksProjection,
        automationStoreProjection,
      ],
      [],
      Date.parse('2026-11-20T10:00:00Z'),
      17,
    );
    ({
      catalog: { revision },
    } = await acquireCatalog(h.db));
    account = await h.connect('seller', user);
    await adsEntitiesSync.run({ ...h.deps(''), credentials: () => ({ ads_refresh_token: ADS_TOKEN }) }, account);
    await h.projector.whenCaughtUp();
    profile = (await loadAccounts(h.db, user))[0]!.ads!.profiles.find((p) => p.country_code === 'US')!;
    campaign = (await sp('campaigns'))[0]!;
    adGroup = (await sp('adGroups'))[0]!;
    mcp = await serveMcp(h.db, () => new Date(h.clock.ms));
    ada = await mcp.clientFor(user);
  });
  after(async () => {
    await mcp?.close();
    await h?.close();
  });

  it('admits a native campaign update as the receipt of the update action, sent as the native item; a retry replays it', async () => {
    const native = { state: 'PAUSED', budget: { budget: 12.5, budgetType: 'DAILY' } };
    const args = {
      mutations: [{ target: campaignTarget(), action: UPDATE_CAMPAIGNS, payload: native }],
      idempotency_key: randomUUID(),
      catalog_revision: revision,
    };
    const first = await queue(args);
    const result = (first.structuredContent.results as Raw[])[0]!;
    expect(result.receipt, JSON.stringify(result)).to.include({
      status: 'queued',
      action: 'update',
      target_type: 'Campaign',
    });
    const receipt = (await call(ada, 'get_mutation', { id: result.receipt.id })).structuredContent;
    expect(receipt.payload).to.deep.equal(native);
    // what the dispatcher sends for it: the native item, with the campaign's id
    const request = marketplaceRequest({
      target: { type: 'Campaign', id: result.receipt.target_id },
      action: 'update',
      payload: receipt.payload,
      provider: { profileId: profile.provider_profile_id, campaignId: campaign.campaignId },
    });
    expect(request).to.deep.include({
      resource: 'campaigns',
      operation: 'update',
      item: { campaignId: campaign.campaignId, ...native },
    });

    const again = await queue(args);
    expect(again.structuredContent.replayed).to.equal(true);
    expect(again.structuredContent.results[0].receipt.id).to.equal(result.receipt.id);
  });

  it("a receipt remembers the qualified key it was queued as: get_mutation shows it, list_mutations' operation filter finds it by it, read at once", async () => {
    const { receipt } = await resultOf({
      target: campaignTarget(),
      action: UPDATE_CAMPAIGNS,
      payload: { budget: { budget: 14, budgetType: 'DAILY' } },
    });
    const shown = (await call(ada, 'get_mutation', { id: receipt.id })).structuredContent;
    expect(shown).to.include({ action: 'update', operation: UPDATE_CAMPAIGNS });
    // queued a moment ago, listed at once (the call waits for its own writes)
    const listed = async (operation: string) => {
      const page = await call(ada, 'list_mutations', { operation, limit: 100 });
      expect(page.isError, JSON.stringify(page.structuredContent)).to.equal(undefined);
      return page.structuredContent.mutations as Raw[];
    };
    const byKey = await listed(UPDATE_CAMPAIGNS);
    expect(byKey.find((m) => m.id === receipt.id)).to.include({ operation: UPDATE_CAMPAIGNS, action: 'update' });
    expect(byKey.every((m) => m.operation === UPDATE_CAMPAIGNS)).to.equal(true);
    expect((await listed('update')).map((m) => m.id)).to.include(receipt.id);
    expect((await listed(DELETE_AD_GROUPS)).map((m) => m.id)).to.not.include(receipt.id);
    // a receipt queued as one of the six actions has no key, and no key finds it
    const plain = await queue({
      mutations: [
        { target: campaignTarget(), action: 'update', payload: { budget: { budget: 15, budgetType: 'DAILY' } } },
      ],
    });
    const plainId = plain.structuredContent.results[0].receipt?.id as string;
    expect(plainId, JSON.stringify(plain.structuredContent)).to.be.a('string');
    expect((await call(ada, 'get_mutation', { id: plainId })).structuredContent.operation).to.equal(undefined);
    expect((await listed(UPDATE_CAMPAIGNS)).map((m) => m.id)).to.not.include(plainId);
    const bad = await call(ada, 'list_mutations', { operation: 'UpdateSponsoredProductsCampaigns' });
    expect(bad.isError).to.equal(true);
  });

  it('turns native keyword and targeting clause creations into the create_target requests the dispatcher sends back as native items', async () => {
    const keyword = await resultOf({
      target: adGroupTarget(),
      action: CREATE_KEYWORDS,
      payload: { keywordText: 'qualified keyword', matchType: 'PHRASE', state: 'ENABLED', bid: 0.8 },
    });
    expect(keyword.receipt, JSON.stringify(keyword)).to.include({ action: 'create_target', target_type: 'AdGroup' });
    const sent = (payload: Raw) =>
      marketplaceRequest({
        target: adGroupTarget() as { type: 'AdGroup'; id: string },
        action: 'create_target',
        payload,
        provider: {
          profileId: profile.provider_profile_id,
          campaignId: campaign.campaignId,
          adGroupId: adGroup.adGroupId,
        },
      });
    const keywordPayload = (await call(ada, 'get_mutation', { id: keyword.receipt.id })).structuredContent.payload;
    expect(sent(keywordPayload)).to.deep.include({
      resource: 'keywords',
      item: {
        campaignId: campaign.campaignId,
        adGroupId: adGroup.adGroupId,
        keywordText: 'qualified keyword',
        matchType: 'PHRASE',
        state: 'ENABLED',
        bid: 0.8,
      },
    });

    const clause = await resultOf({
      target: adGroupTarget(),
      action: CREATE_CLAUSES,
      payload: {
        expression: [{ type: 'ASIN_SAME_AS', value: 'B0QUALIFY1' }],
        expressionType: 'MANUAL',
        state: 'ENABLED',
        bid: 0.5,
      },
    });
    const clausePayload = (await call(ada, 'get_mutation', { id: clause.receipt.id })).structuredContent.payload;
    expect(sent(clausePayload)).to.deep.include({
      resource: 'targets',
      item: {
        campaignId: campaign.campaignId,
        adGroupId: adGroup.adGroupId,
        expression: [{ type: 'ASIN_SAME_AS', value: 'B0QUALIFY1' }],
        expressionType: 'MANUAL',
        state: 'ENABLED',
        bid: 0.5,
      },
    });
    // a delete names its entity by the target
    const archived = await resultOf({ target: adGroupTarget(), action: DELETE_AD_GROUPS, payload: {} });
    expect(archived.receipt).to.include({ action: 'archive', target_type: 'AdGroup' });
  });

  it('refuses the call without idempotency_key or catalog_revision (invalid), or with a stale revision (schema_changed); nothing is queued', async () => {
    const mutations = [{ target: campaignTarget(), action: UPDATE_CAMPAIGNS, payload: { state: 'PAUSED' } }];
    const noKey = await errorOf({ arguments: { mutations, catalog_revision: revision } });
    expect(noKey).to.include({ code: 'invalid', argument: 'idempotency_key' });
    const noRevision = await errorOf({ arguments: { mutations, idempotency_key: randomUUID() } });
    expect(noRevision).to.include({ code: 'invalid', argument: 'catalog_revision' });
    const stale = await errorOf({
      arguments: { mutations, idempotency_key: randomUUID(), catalog_revision: 'f'.repeat(64) },
    });
    expect(stale).to.include({ code: 'schema_changed', current_revision: revision });
    const listed = await call(ada, 'list_mutations', {
      target_type: 'Campaign',
      target_id: campaignTarget().id,
      limit: 100,
    });
    expect(
      (listed.structuredContent.mutations as Raw[]).every((m) => m.status !== 'queued' || m.action === 'update'),
    ).to.equal(true);
  });

  it('refuses each mutation on its own: invalid_parameters (native schema), scope_mismatch (ids), operation_unavailable (not a queued write), invalid (target type)', async () => {
    const answer = await qualified([
      {
        target: campaignTarget(),
        action: UPDATE_CAMPAIGNS,
        payload: { state: 'PAUSED', budget: { budget: 'lots', budgetType: 'DAILY' } },
      },
      { target: campaignTarget(), action: UPDATE_CAMPAIGNS, payload: { campaignId: '1234567', state: 'PAUSED' } },
      { target: campaignTarget(), action: `${SP}:ListSponsoredProductsCampaigns`, payload: {} },
      { target: campaignTarget(), action: 'sp_api:orders:v0:getOrderBuyerInfo', payload: {} },
      { target: campaignTarget(), action: 'sp_api:orders:v0:getOrders', payload: {} },
      { target: adGroupTarget(), action: UPDATE_CAMPAIGNS, payload: { state: 'PAUSED' } },
      { target: adGroupTarget(), action: DELETE_AD_GROUPS, payload: { adGroupIdFilter: { include: ['1'] } } },
      {
        target: adGroupTarget(),
        action: CREATE_CLAUSES,
        payload: { expression: [{ type: 'QUERY_BROAD_REL_MATCHES' }], expressionType: 'AUTO', state: 'ENABLED' },
      },
    ]);
    const errors = (answer.structuredContent.results as Raw[]).map((r) => r.error);
    expect(errors.map((e) => e?.code)).to.deep.equal([
      'invalid_parameters',
      'scope_mismatch',
      'operation_unavailable',
      'operation_unavailable',
      'operation_unavailable',
      'invalid',
      'invalid_parameters',
      'invalid_parameters',
    ]);
    expect(errors[0].argument).to.equal('mutations[0].payload.budget.budget');
    expect(errors.slice(2, 5).map((e) => e.reason)).to.deep.equal([
      'live_read',
      'restricted_data_disabled',
      'adapter_missing',
    ]);
    expect(answer.structuredContent.admitted).to.equal(0);
  });

  describe('operation_dependencies', () => {
    let digest: string;
    before(async () => {
      digest = (await findOperation(h.db, UPDATE_CAMPAIGNS))!.schema_digest;
    });
    const code = 'function handle(event, context) {}';
    const create = (deps: Raw) =>
      call(ada, 'create_automation', { stream_type: 'ANY_OFFER_CHANGED', code, operation_dependencies: deps });

    it('create_automation and update_automation save dependencies pinned to the current revision and digest', async () => {
      const created = await create({ [UPDATE_CAMPAIGNS]: { catalog_revision: revision, schema_digest: digest } });
      expect(created.isError, JSON.stringify(created.structuredContent)).to.equal(undefined);
      const id = created.structuredContent.automation_id;
      // as saved: the automations read model (get_automation's source)
      await h.projector.whenCaughtUp();
      const saved = await findAutomation(h.db, [account], id);
      expect(saved!.operation_dependencies).to.deep.equal({
        [UPDATE_CAMPAIGNS]: { catalog_revision: revision, schema_digest: digest },
      });
      const moved = await call(ada, 'update_automation', {
        automation_id: id,
        operation_dependencies: { [UPDATE_CAMPAIGNS]: { catalog_revision: revision, schema_digest: 'e'.repeat(64) } },
      });
      expect(moved.structuredContent).to.include({
        code: 'schema_changed',
        schema_digest: digest,
        current_revision: revision,
      });
    });

    it('schema_changed when the revision or digest moved, operation_unavailable for what an automation cannot use, on create, update and run', async () => {
      const stale = await create({ [UPDATE_CAMPAIGNS]: { catalog_revision: 'a'.repeat(64), schema_digest: digest } });
      expect(stale.structuredContent).to.include({
        code: 'schema_changed',
        argument: `operation_dependencies.${UPDATE_CAMPAIGNS}.catalog_revision`,
        current_revision: revision,
      });
      const digestMoved = await create({
        [UPDATE_CAMPAIGNS]: { catalog_revision: revision, schema_digest: 'b'.repeat(64) },
      });
      expect(digestMoved.structuredContent.code).to.equal('schema_changed');
      const read = `${SP}:ListSponsoredProductsCampaigns`;
      const liveRead = await create({
        [read]: { catalog_revision: revision, schema_digest: (await findOperation(h.db, read))!.schema_digest },
      });
      expect(liveRead.structuredContent).to.include({ code: 'operation_unavailable', reason: 'live_read' });
      const run = await call(ada, 'run_automation', {
        code,
        stream_type: 'ANY_OFFER_CHANGED',
        operation_dependencies: { [UPDATE_CAMPAIGNS]: { catalog_revision: 'a'.repeat(64), schema_digest: digest } },
      });
      expect(run.structuredContent.code).to.equal('schema_changed');
    });
  });
  describe("a live run's qualified actions", () => {
    let sandbox: Sandbox;
    let digest: string;
    const STATUS = 'ACCOUNT_STATUS_CHANGED';
    before(async () => {
      sandbox = createSandbox({ runners: 1 });
      digest = (await findOperation(h.db, UPDATE_CAMPAIGNS))!.schema_digest;
    });
    after(async () => {
      await sandbox?.close();
    });
    /** Pushes a native campaign update (declared or not) and an undeclared keyword creation. */
    const pushing = () => `function handle(event, context) {
      const campaign = { type: 'Campaign', id: ${JSON.stringify(campaignTarget().id)} };
      context.mutations.push({ target: campaign, action: ${JSON.stringify(UPDATE_CAMPAIGNS)}, payload: { state: 'PAUSED' } });
      context.mutations.push({ target: ${JSON.stringify(adGroupTarget())}, action: ${JSON.stringify(CREATE_KEYWORDS)},
        payload: { keywordText: 'blue mug', matchType: 'EXACT', bid: 0.5 } });
    }`;
    /** One live run of the saved automation on a recorded account event, as the live reactor runs it. */
    const liveRun = async (automation_id: string, code: string) => {
      const [acc] = await loadAccounts(h.db, user);
      const type = selectableStreamType(STATUS)!;
      const sample = (await cannedSample(h.db, acc!, type, undefined))!;
      const runs = await runAutomation(
        { db: h.db, store: h.store, logger: h.deps('').logger, sandbox },
        {
          mode: 'live',
          automation: { id: automation_id, version: 1, code },
          account: acc!,
          streamType: STATUS,
          event: { id: randomUUID(), payload: sample.payload },
          now: new Date(h.clock.ms),
        },
      );
      expect(runs).to.have.length(1);
      expect(runs[0]!.error, JSON.stringify(runs[0]!.error)).to.equal(null);
      return runs[0]!.outbox!.actions;
    };

    it('admits a declared qualified action pinned to the current schema; an undeclared one fails as invalid output', async () => {
      const code = pushing();
      const created = await call(ada, 'create_automation', {
        stream_type: STATUS,
        code,
        operation_dependencies: { [UPDATE_CAMPAIGNS]: { catalog_revision: revision, schema_digest: digest } },
      });
      expect(created.isError, JSON.stringify(created.structuredContent)).to.equal(undefined);
      const [update, keyword] = await liveRun(created.structuredContent.automation_id, code);
      expect(update, JSON.stringify(update)).to.deep.include({ index: 0, status: 'applied' });
      expect(update!.receipt).to.include({ status: 'queued', action: 'update', target_type: 'Campaign' });
      const receipt = (await call(ada, 'get_mutation', { id: update!.receipt!.id })).structuredContent;
      expect(receipt, JSON.stringify(receipt)).to.include({ operation: UPDATE_CAMPAIGNS });
      expect(receipt.caused_by.automation_id).to.equal(created.structuredContent.automation_id);
      expect(keyword).to.deep.include({ index: 1, status: 'failed', action: CREATE_KEYWORDS });
      expect(keyword!.error).to.include({ code: 'invalid', argument: 'context.mutations[1].action' });
    });

    it('a saved pin the catalog moved past: the live run records schema_changed and admits nothing; run_automation refuses it', async () => {
      const code = pushing();
      const [acc] = await loadAccounts(h.db, user);
      // saved while its digest was another (the catalog has moved since): the command records it as it was saved
      const automation_id = await createAutomation(
        {
          store: h.store,
          userId: user,
          accounts: [acc!],
          at: new Date(h.clock.ms),
          correlationId: randomUUID(),
          simulate: false,
        },
        {
          account: acc!,
          stream_type: STATUS,
          title: 'pinned before the catalog moved',
          code,
          operation_dependencies: { [UPDATE_CAMPAIGNS]: { catalog_revision: revision, schema_digest: 'b'.repeat(64) } },
        },
      );
      const [update, keyword] = await liveRun(automation_id, code);
      expect(update, JSON.stringify(update)).to.deep.include({ index: 0, status: 'failed', action: UPDATE_CAMPAIGNS });
      expect(update!.error).to.include({
        code: 'schema_changed',
        current_revision: revision,
        schema_digest: digest,
        argument: `operation_dependencies.${UPDATE_CAMPAIGNS}.schema_digest`,
      });
      expect(update!.receipt).to.equal(undefined);
      expect(keyword!.status).to.equal('failed');
      await h.projector.whenCaughtUp();
      const run = await call(ada, 'run_automation', { automation_id });
      expect(run.structuredContent, JSON.stringify(run.structuredContent)).to.include({
        code: 'schema_changed',
        argument: `operation_dependencies.${UPDATE_CAMPAIGNS}.schema_digest`,
        schema_digest: digest,
      });
      expect(run.structuredContent.detail).to.match(/^the automation's saved /);
    });
  });
});
