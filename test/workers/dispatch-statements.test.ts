import { expect } from 'chai';
import pg from 'pg';
import pino from 'pino';
import { createLwaClient } from '../../src/marketplace/clients/index.js';
import { DEFAULT_LWA_CLIENT } from '../../src/marketplace/simulator/app.js';
import { dispatchClients } from '../../src/workers/dispatch/clients.js';
import { Dispatcher } from '../../src/workers/dispatch/dispatcher.js';
import { ADS_TOKEN, SELLING_TOKEN } from '../support/marketplace.js';
import { pricePatch, startBench, type Bench } from './dispatch-support.js';

// How many PostgreSQL statements the dispatcher sends for a receipt, counted as the live bench
// counts them (pg.Client.prototype.query): a ceiling each, so a change that adds a statement to
// the path shows here. One job's work, its read model caught up and its projector stopped, so
// the count is the dispatcher's own: the receipt and its queue from the read model; the lock
// (begin, lock, commit); the receipts' streams with their flags; the account's connections; the
// starts and the answers, one write each; at most one NOTIFY after each write.

const US = 'ATVPDKIKX0DER';
const CEILING = 10;

/** The statements this process sends while `work` runs, their texts in order. */
async function statementsOf(work: () => Promise<void>): Promise<string[]> {
  const texts: string[] = [];
  const query = pg.Client.prototype.query as (...a: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...a: unknown[]) {
    const config = a[0] as string | { text?: string } | undefined;
    texts.push(typeof config === 'string' ? config : (config?.text ?? ''));
    return query.apply(this, a);
  } as typeof pg.Client.prototype.query;
  try {
    await work();
  } finally {
    pg.Client.prototype.query = query as typeof pg.Client.prototype.query;
  }
  return texts;
}

describe('statements a dispatched receipt costs', function () {
  this.timeout(60000);
  let b: Bench;
  let used = 0;
  let dispatcher: Dispatcher;

  before(async () => {
    b = await startBench({ worker: false });
    const lwa = createLwaClient({ tokenUrl: b.simulator.endpoints().lwaTokenUrl, ...DEFAULT_LWA_CLIENT });
    dispatcher = new Dispatcher({
      db: b.db,
      ctx: { store: b.store, metadata: { actor: { kind: 'worker', id: 'dispatch' } } },
      ...dispatchClients({
        db: b.db,
        lwa,
        endpoints: b.simulator.endpoints(),
        credentials: () => ({ selling_refresh_token: SELLING_TOKEN, ads_refresh_token: ADS_TOKEN }),
        timeoutMs: 1000,
      }),
      now: b.clock.now,
      backoff: { baseMs: 20, maxMs: 200 },
      batchSize: 10,
      reconcileEveryMs: 60_000,
      later: () => Promise.resolve(),
      logger: pino({ level: 'silent' }),
    });
  });
  after(async () => b.close());

  const freshListing = () => {
    const listing = [...b.simulator.catalog.listingsIn(US)].filter((l) => l.status === 'BUYABLE')[used++]!;
    return b.listing(listing.sku, US);
  };
  const admitPrices = async (prices: number[]) => {
    const l = freshListing();
    const ids: string[] = [];
    for (const price of prices)
      ids.push(
        await b.admit({
          ...l,
          action: 'update',
          payload: { productType: 'PRODUCT', patches: [pricePatch(US, price)] },
        }),
      );
    // the read model shows them; its projector then stops, so what is counted is the dispatcher's own
    await b.caughtUp();
    await b.projector.stop();
    return ids;
  };
  /** Dispatches the first receipt's target; every receipt is then accepted. The statements it sent. */
  const dispatched = async (ids: string[]) => {
    const texts = await statementsOf(() => dispatcher.dispatchFor(ids[0]!));
    b.projector.start();
    for (const id of ids) expect((await b.until(id, ['submitted'])).outcome).to.equal('accepted');
    return texts.map((t) => t.replace(/\s+/g, ' ').trim().slice(0, 100));
  };

  it(`one receipt: at most ${CEILING}`, async () => {
    const texts = await dispatched(await admitPrices([12.01]));
    expect(texts.length, texts.join('\n')).to.be.at.most(CEILING);
  });

  it(`five patches of one listing, sent in one call: at most ${CEILING} too`, async () => {
    const texts = await dispatched(await admitPrices([12.01, 12.02, 12.03, 12.04, 12.05]));
    expect(texts.length, texts.join('\n')).to.be.at.most(CEILING);
    const calls = (await b.listingSubmissions()).filter((s) => s.mode === 'APPLY');
    expect(calls.at(-1)!.patches).to.have.length(5);
  });
});
