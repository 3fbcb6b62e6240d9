import { Writable } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { executeAccountCommand } from '../../src/commands/account/execute.js';
import { setAlertDestination } from '../../src/commands/alert/execute.js';
import { recordAutomationRun } from '../../src/commands/automation-run/record.js';
import { handleCommand } from '../../src/commands/shared/handler.js';
import { automationDecider } from '../../src/domain/automation/decide.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import { subscriptionDecider, subscriptionId, type SubscriptionCommand } from '../../src/domain/stream/subscription.js';
import { newId } from '../../src/domain/shared/ids.js';
import { partitionOf } from '../../src/domain/shared/partitions.js';
import { createCredentials } from '../../src/identity/credentials.js';
import { createMailer } from '../../src/infra/mail.js';
import { alertsProjection } from '../../src/projections/alerts/projection.js';
import { automationRunsProjection } from '../../src/projections/automation-runs/projection.js';
import { automationsProjection } from '../../src/projections/automations/projection.js';
import { streamsProjection } from '../../src/projections/streams/projection.js';
import { webhookDeliveriesProjection } from '../../src/projections/webhook/deliveries.js';
import { webhooksProjection } from '../../src/projections/webhook/projection.js';
import { sweepAlerts, type AlertSweepDeps } from '../../src/workers/alerts/sweep.js';
import { FAILING_RUNS } from '../../src/workers/alerts/findings.js';
import { startAlertsWebhook, type AlertsWebhook } from '../support/alerts-webhook.js';
import { startHarness, type Harness } from '../support/observed.js';
import { until } from '../support/receiver.js';

// The alerts sweep against the real read models, event log, delivery queue (Redis) and a local
// receiver: what needs the seller is posted once to the webhook they chose, signed; a condition
// that clears and comes back is a new alert; an email destination gets a mail.

const START = Date.parse('2026-05-20T20:00:00Z');
const KEY = 'alerts-test-signing-key-of-32-bytes!!';

describe('alerts', function () {
  this.timeout(120_000);
  let h: Harness;
  let account: string;
  let hook: AlertsWebhook;
  const mails: Array<{ to: string[]; subject: string; text: string }> = [];
  const logger = pino({ level: 'silent' });
  let deps: AlertSweepDeps;
  const automation = newId();
  const at = () => new Date(h.clock.ms).toISOString();

  const runs = async (failed: boolean, n: number) => {
    for (let i = 0; i < n; i++) {
      h.clock.ms += 1000;
      await recordAutomationRun(deps.ctx, {
        run: {
          automation_id: automation,
          automation_version: 1,
          account_id: account,
          stream_type: 'ANY_OFFER_CHANGED',
          event_id: newId(),
          listing_id: null,
        },
        at: new Date(h.clock.ms),
        error_message: failed ? `TypeError: price is undefined (${i})` : null,
        missing_fields: [],
        mutations: [],
        store_changes: 0,
        webhook_posts: 0,
      });
    }
  };
  const sweep = async () => {
    await h.projector.whenCaughtUp();
    await sweepAlerts(deps);
    await h.projector.whenCaughtUp();
  };
  const posted = () => hook.receiver.received.map((r) => JSON.parse(r.body) as Record<string, string>);
  const alertRows = () => h.db.withSchema('rm').table('alerts').where({ account_id: account }).orderBy('raised_at');

  before(async () => {
    h = await startHarness(
      [
        automationsProjection,
        automationRunsProjection,
        streamsProjection,
        webhooksProjection,
        webhookDeliveriesProjection,
        alertsProjection,
      ],
      [],
      START,
    );
    account = await h.connect('seller');
    hook = await startAlertsWebhook({ h }, account, KEY, logger);
    // the development mailer writes each mail to its log: the test reads it there
    const mailLog = new Writable({
      write(chunk, _enc, done) {
        const line = JSON.parse(String(chunk)) as { mail?: (typeof mails)[number] };
        if (line.mail) mails.push(line.mail);
        done();
      },
    });
    deps = {
      db: h.db,
      ctx: { store: h.store, metadata: { actor: { kind: 'worker', id: 'alerts-test' } } },
      webhooks: hook.webhooks,
      mailer: createMailer({ from: 'alerts@example.com', env: 'test', logger: pino(mailLog) }),
      now: () => new Date(h.clock.ms),
      logger,
    };
    await handleCommand(
      automationDecider,
      automation,
      {
        type: 'CreateAutomation',
        automation_id: automation,
        account_id: account,
        stream_type: 'ANY_OFFER_CHANGED',
        title: 'Reprice',
        code: 'function handle(event, context) {}',
        operation_dependencies: {},
        source_automation_id: null,
        by: 'user-1',
        at: at(),
      },
      deps.ctx,
    );
  });
  after(async () => {
    await hook?.close();
    await h?.close();
  });

  it('refuses a destination webhook the account does not have', async () => {
    let refused: unknown;
    try {
      await setAlertDestination(deps.ctx, {
        account_id: account,
        destination: { kind: 'webhook', webhook: 'nope' },
        by: 'user-1',
        at: at(),
      });
    } catch (err) {
      refused = err;
    }
    expect(refused).to.be.instanceOf(DomainError);
    expect((refused as DomainError).detail).to.equal("webhook: no webhook named 'nope' on this account");
  });

  it('posts each condition once, signed: an authorization the marketplace revoked, an automation failing run after run', async () => {
    await runs(true, FAILING_RUNS);
    await sweep();
    expect(hook.receiver.received, 'no destination yet: nothing raised').to.have.length(0);
    expect(await alertRows()).to.have.length(0);

    await setAlertDestination(deps.ctx, {
      account_id: account,
      destination: { kind: 'webhook', webhook: 'alerts' },
      by: 'user-1',
      at: at(),
    });
    await executeAccountCommand(deps.ctx, {
      type: 'DeactivateConnection',
      account_id: account,
      connection: 'selling',
      cause: 'authorization_refused',
      detail: 'Login with Amazon refused the refresh token (invalid_grant)',
      at: at(),
    });
    // the marketplace refused an event type's subscription
    const subscription = (command: SubscriptionCommand) =>
      handleCommand(subscriptionDecider, subscriptionId(account, 'ANY_OFFER_CHANGED'), command, deps.ctx);
    const type = { account_id: account, stream_type: 'ANY_OFFER_CHANGED', at: at() };
    await subscription({ type: 'RequestSubscription', seen: 'inactive', ...type });
    await subscription({ type: 'RecordFailed', error: 'destination refused: 403', ...type });
    await sweep();
    await until(() => hook.receiver.received.length >= 3, 20_000);
    const kinds = posted().map((b) => b.alert);
    expect(kinds.sort()).to.deep.equal(['authorization_revoked', 'automation_failing', 'stream_failed']);
    expect(posted().find((b) => b.alert === 'stream_failed')!.detail).to.contain(
      'The ANY_OFFER_CHANGED event stream of',
    );
    const failing = posted().find((b) => b.alert === 'automation_failing')!;
    expect(failing.detail).to.contain(`Automation ${automation}`);
    expect(failing.detail).to.contain('TypeError: price is undefined (2)');
    expect(failing.text).to.equal(`Alert: ${failing.detail}`);
    const wh = new Webhook(hook.secret);
    for (const r of hook.receiver.received) wh.verify(r.body, r.headers as Record<string, string>);
    const rows = await alertRows();
    expect(rows).to.have.length(3);
    for (const r of rows) expect(r.sent_at, 'handed off').to.not.equal(null);

    // swept again while the conditions last: nothing more
    await sweep();
    await new Promise((r) => setTimeout(r, 500));
    expect(hook.receiver.received).to.have.length(3);
    expect(await alertRows()).to.have.length(3);
  });

  it('clears a condition that ends; when it comes back it is a new alert', async () => {
    await runs(false, 1);
    await sweep();
    const cleared = (await alertRows()).find((r) => r.kind === 'automation_failing');
    expect(cleared.cleared_at, 'the automation ran well once').to.not.equal(null);
    await runs(true, FAILING_RUNS);
    await sweep();
    await until(() => hook.receiver.received.length >= 4, 20_000);
    const again = posted()[3]!;
    expect(again.alert).to.equal('automation_failing');
    expect(again.alert_id).to.not.equal(cleared.alert_id);
    expect(await alertRows()).to.have.length(4);
  });

  it("mails the alerts to the seller's own address when that is the destination, read at sending", async () => {
    const user_id = newId();
    const email = `alerts.${user_id}@example.com`;
    await createCredentials(h.db, { user_id, email, password_hash: null });
    await setAlertDestination(deps.ctx, {
      account_id: account,
      destination: { kind: 'email', user_id },
      by: 'user-1',
      at: at(),
    });
    await runs(false, 1);
    await sweep(); // the failing automation clears
    await runs(true, FAILING_RUNS);
    await sweep();
    expect(mails).to.have.length(1);
    expect(mails[0]!.to).to.deep.equal([email]);
    const events = (await h.allEvents()).filter((e) => e.streamId === `alert-${account}`);
    expect(JSON.stringify(events.map((e) => e.data)), 'the address stays out of the log').to.not.contain(email);
    expect(mails[0]!.subject).to.equal('Alert: automation failing');
    expect(mails[0]!.text).to.contain(`Automation ${automation}`);
    expect(hook.receiver.received, 'no more webhook posts').to.have.length(4);
  });

  it("two workers sweeping at once: the account's partition's holder alone mails its alert", async () => {
    const sent = mails.length;
    const raised = (await alertRows()).length;
    await runs(false, 1);
    await sweep(); // the failing automation clears
    await runs(true, FAILING_RUNS);
    await h.projector.whenCaughtUp();
    const own = partitionOf(account, 2);
    const worker = (held: number[]): AlertSweepDeps => ({ ...deps, partitions: () => ({ count: 2, held }) });
    await sweepAlerts(worker([1 - own]));
    await h.projector.whenCaughtUp();
    expect(mails, 'the other partition holder sends nothing').to.have.length(sent);
    expect(await alertRows(), 'nor raises the alert').to.have.length(raised);
    await Promise.all([sweepAlerts(worker([own])), sweepAlerts(worker([1 - own])), sweepAlerts(worker([]))]);
    await h.projector.whenCaughtUp();
    expect(mails).to.have.length(sent + 1);
    const rows = await alertRows();
    expect(rows).to.have.length(raised + 1);
    expect(rows.at(-1)!.sent_at).to.not.equal(null);
  });

  it('a partition handed over mid-sweep: the sweep leaves its accounts to the new holder', async () => {
    const sent = mails.length;
    await runs(false, 1);
    await sweep();
    await runs(true, FAILING_RUNS);
    await h.projector.whenCaughtUp();
    const raised = (await alertRows()).length;
    const own = partitionOf(account, 2);
    // held when the sweep lists the accounts, handed over before it reaches this one
    let asked = 0;
    await sweepAlerts({ ...deps, partitions: () => ({ count: 2, held: asked++ === 0 ? [own] : [] }) });
    await h.projector.whenCaughtUp();
    expect(asked).to.be.greaterThan(1);
    expect(mails).to.have.length(sent);
    expect(await alertRows()).to.have.length(raised);
  });
});
