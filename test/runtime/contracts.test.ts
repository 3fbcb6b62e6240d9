import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { payloadSchema } from '../../src/domain/mutation/payloads.js';
import { SELECTABLE_STREAM_TYPES } from '../../src/domain/stream/types.js';
import type { Simulator } from '../../src/marketplace/simulator/app.js';
import { DATASETS, isAdsType, VERSIONS } from '../../src/marketplace/simulator/events/types.js';
import { EVENT_CONTRACTS } from '../../src/runtime/contracts/events/index.js';
import { AS_SENT, fieldsOf, MAJOR } from '../../src/runtime/contracts/fields.js';
import { CONTEXT_FIELDS, eventFixture, streamContract } from '../../src/runtime/contracts/index.js';
import { startReceiver, until, sleep, type Receiver } from '../support/receiver.js';
import { clientsFor, startSimulator } from '../support/marketplace.js';

// The handler contracts as data: complete for the 24 selectable types, notes that name real
// fixture keys, money stated in the units spec 1.10 gives, setters that admission agrees with,
// and fixtures whose key structure is what the simulator pushes for the type.

/** The last key of a money field in the marketplace's messages. */
const MONEY_KEY = /(^|\.)(amount|cost|orderedRevenue|budget|bid|defaultBid|value|attributed_sales_\w+)$/i;
const CODES = SELECTABLE_STREAM_TYPES.map((t) => t.code);
const MARKETPLACE_CODES = SELECTABLE_STREAM_TYPES.filter((t) => t.source !== 'local').map((t) => t.code);

describe('runtime contracts', () => {
  it('covers exactly the 24 selectable types, each with a fixture, event fields and its scope', () => {
    expect(CODES).to.have.length(24);
    expect(Object.keys(EVENT_CONTRACTS).sort()).to.deep.equal([...CODES].sort());
    for (const code of CODES) {
      const contract = streamContract(code)!;
      expect(contract.event.fields.length, code).to.be.greaterThan(3);
      expect(contract.context.fields, code).to.equal(CONTEXT_FIELDS[contract.scope]);
      expect(eventFixture(code), code).to.deep.equal(contract.event.fixture);
    }
    expect(streamContract('REPORT_PROCESSING_FINISHED')).to.equal(undefined);
    expect(eventFixture('DATA_KIOSK_QUERY_PROCESSING_FINISHED')).to.equal(undefined);
    expect(streamContract('NOPE')).to.equal(undefined);
  });

  it('hands out a fresh fixture each time (a run that changes its event changes no other)', () => {
    const first = eventFixture('ORDER_CHANGE')!;
    first.Payload = null;
    expect(eventFixture('ORDER_CHANGE')!.Payload).to.be.an('object');
  });

  it('every note names a key of its fixture', () => {
    for (const code of CODES) {
      const { fixture, notes } = EVENT_CONTRACTS[code]!;
      const paths = new Set(fieldsOf(fixture, {}).map((f) => f.path));
      expect(
        Object.keys(notes).filter((p) => !paths.has(p)),
        code,
      ).to.deep.equal([]);
    }
  });

  it('selling envelopes are PascalCase except the five camelCase types of spec 4.11.2', () => {
    const camel = ['PRICING_HEALTH', 'ACCOUNT_STATUS_CHANGED', 'FEED_PROCESSING_FINISHED', 'ITEM_SALES_EVENT_CHANGE'];
    camel.push('DETAIL_PAGE_TRAFFIC_EVENT');
    for (const t of SELECTABLE_STREAM_TYPES.filter((x) => x.source === 'selling')) {
      const keys = Object.keys(eventFixture(t.code)!);
      expect(keys, t.code).to.include(camel.includes(t.code) ? 'notificationType' : 'NotificationType');
      expect(streamContract(t.code)!.event.envelope, t.code).to.contain(
        camel.includes(t.code) ? 'camelCase' : 'Pascal',
      );
    }
  });

  it('money: context amounts in major units (numbers, or decimal strings where the ads API has them), event amounts as sent', () => {
    for (const code of CODES) {
      const contract = streamContract(code)!;
      const money = contract.context.fields.filter((f) => f.unit === MAJOR);
      if (contract.scope !== 'SellingPartner')
        expect(money.length, `${code} documents money in context`).to.be.greaterThan(0);
      for (const f of money) expect(['number', 'string'], `${code} context.${f.path}`).to.include(f.type);
      const eventMoney = contract.event.fields.filter((f) => f.type === 'number' && MONEY_KEY.test(f.path));
      for (const f of eventMoney) expect(f.unit, `${code} event.${f.path}`).to.contain(AS_SENT);
    }
    const listing = streamContract('ANY_OFFER_CHANGED')!.context.fields;
    expect(listing.find((f) => f.path === 'listing.price')).to.include({ type: 'number', nullable: true, unit: MAJOR });
    expect(listing.find((f) => f.path === 'listing.campaigns[].dailyBudget')).to.include({ type: 'string' });
  });

  it('every context carries mutations, webhooks and store; the selling partner key is the snake_case one', () => {
    for (const [scope, fields] of Object.entries(CONTEXT_FIELDS)) {
      const top = fields.filter((f) => !f.path.includes('.') && !f.path.includes('['));
      expect(
        top.map((f) => f.path),
        scope,
      ).to.include.members(['mutations', 'webhooks', 'store']);
      const snake = fields.filter((f) => /_/.test(f.path.split('.')[0]!)).map((f) => f.path.split('.')[0]);
      expect([...new Set(snake)], scope).to.deep.equal(scope === 'SellingPartner' ? ['selling_partner'] : []);
    }
  });

  it("setters: the targets found in the scope's context, and admission accepts the writable keys and refuses others", () => {
    const types = (code: string) => streamContract(code)!.setters.map((s) => s.target_type);
    expect(types('ANY_OFFER_CHANGED')).to.deep.equal([
      'Listing',
      'AdvertisingProfile',
      'Campaign',
      'AdGroup',
      'Ad',
      'Target',
    ]);
    expect(types('ACCOUNT_STATUS_CHANGED')).to.deep.equal([]);
    expect(types('BUDGET_USAGE')).to.not.include('Listing');
    const listing = streamContract('ORDER_CHANGE')!.setters[0]!;
    expect(listing.found_at).to.deep.equal(['context.listing']);
    expect(listing.actions.map((a) => a.action)).to.deep.equal(['update']);
    expect(listing.attributes!.map((a) => a.field)).to.include.members(['price', 'quantity', 'handlingTime']);
    const campaign = streamContract('CAMPAIGN_CHANGE')!.setters.find((s) => s.target_type === 'Campaign')!;
    expect(campaign.found_at).to.deep.equal(['context.campaign']);
    const update = campaign.actions.find((a) => a.action === 'update')!;
    expect(update.writable).to.include.members(['state', 'budget']).and.not.include('campaignId');
    expect(update.derived).to.include('campaignId');
    const target = streamContract('TARGET_CHANGE')!.setters.find((s) => s.target_type === 'Target')!;
    expect(target.actions.find((a) => a.action === 'update')!.writable).to.deep.equal(['state', 'bid']);
    expect(payloadSchema('Campaign', 'update')!.safeParse({ state: 'PAUSED' }).success).to.equal(true);
    expect(payloadSchema('Campaign', 'update')!.safeParse({ price: 3 }).success, 'a key outside writable').to.equal(
      false,
    );
    expect(payloadSchema('Target', 'update')!.safeParse({ bid: { bid: 0.8 } }).success).to.equal(true);
  });

  it('queueing states the per-run limits of spec 8', () => {
    const { queueing } = streamContract('SP_TRAFFIC')!;
    expect(queueing.limits).to.include({
      requests_per_run: 50,
      payload_bytes_per_run: 100_000,
      output_bytes_per_run: 500_000,
    });
    expect(queueing.push).to.equal('context.mutations.push({ target, action, payload })');
  });
});

/** Every path of a message, with the JSON type of its value ('null' for null). */
function shape(value: unknown): Map<string, string> {
  const paths = new Map<string, string>();
  for (const f of fieldsOf(value, {})) {
    const at = f.path.split(/\.|\[\]\./);
    const leaf = at.reduce<unknown[]>(
      (values, key) =>
        values
          .flatMap((v) => (Array.isArray(v) ? v : [v]))
          .flatMap((v) => (v && typeof v === 'object' && key in v ? [(v as Record<string, unknown>)[key]] : [])),
      [value],
    );
    paths.set(f.path, leaf.some((v) => v === null) ? 'null' : f.type);
  }
  return paths;
}

describe('runtime contracts: fixtures against what the simulator pushes', function () {
  this.timeout(60_000);
  let simulator: Simulator;
  let baseUrl: string;
  let receiver: Receiver;
  const pushed = new Map<string, Record<string, unknown>>();

  before(async () => {
    ({ simulator, baseUrl } = await startSimulator({ seed: 7, events: { streamConfirmMs: 20 } }));
    receiver = await startReceiver();
    const clients = clientsFor(simulator);
    const key = `whsec_${randomBytes(32).toString('base64')}`;
    const profileId = String(simulator.seller.profiles[0]!.profileId);
    const destination = await clients.selling.notifications.createDestination('contracts', {
      http: { url: receiver.url, secret: key },
    });
    for (const code of MARKETPLACE_CODES) {
      if (!isAdsType(code)) {
        const payloadVersion = VERSIONS[code as keyof typeof VERSIONS].payload[0]!;
        await clients.selling.notifications.createSubscription(code, {
          payloadVersion,
          destinationId: destination.destinationId,
        });
        continue;
      }
      const { subscriptionId } = await clients.ads.streams.create(profileId, {
        clientRequestToken: randomUUID(),
        dataSetId: DATASETS[code],
        destination: { httpDestination: { url: receiver.url, secret: key } },
      });
      for (let i = 0; i < 200 && (await clients.ads.streams.get(profileId, subscriptionId)).status !== 'ACTIVE'; i++)
        await sleep(10);
    }
    for (const type of MARKETPLACE_CODES) {
      const before = receiver.received.length;
      const answer = await fetch(`${baseUrl}/_sim/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type }),
      });
      expect(answer.status, type).to.equal(202);
      await until(() => receiver.received.length > before);
      pushed.set(type, JSON.parse(receiver.received.at(-1)!.body) as Record<string, unknown>);
    }
  });
  after(async () => {
    await simulator?.close();
    await receiver?.close();
  });

  it('each fixture has the key structure and value types of the pushed message (optional and varying keys aside)', () => {
    expect([...pushed.keys()].sort()).to.deep.equal([...MARKETPLACE_CODES].sort());
    for (const code of MARKETPLACE_CODES) {
      const { fixture, notes } = EVENT_CONTRACTS[code]!;
      const marked = (what: 'varies' | 'optional') => Object.keys(notes).filter((p) => notes[p]![what]);
      const [varies, optional] = [marked('varies'), marked('optional')];
      const below = (p: string) => varies.some((v) => p.startsWith(`${v}.`));
      const mayLack = (p: string) => optional.some((o) => p === o || p.startsWith(`${o}.`));
      const ours = shape(fixture);
      const theirs = shape(pushed.get(code));
      const missing = [...theirs.keys()].filter((p) => !ours.has(p) && !below(p));
      expect(missing, `${code}: keys the marketplace sends that the fixture lacks`).to.deep.equal([]);
      const extra = [...ours.keys()].filter((p) => !theirs.has(p) && !below(p) && !mayLack(p));
      expect(extra, `${code}: fixture keys the marketplace doesn't send (mark them optional)`).to.deep.equal([]);
      for (const [p, type] of theirs)
        if (ours.has(p) && type !== 'null' && ours.get(p) !== 'null')
          expect(ours.get(p), `${code} ${p}`).to.equal(type);
    }
  });
});
