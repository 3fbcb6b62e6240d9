import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { RUN_LIMITS } from '../../src/runtime/contracts/limits.js';
import { eventFixture } from '../../src/runtime/contracts/index.js';
import { createSandbox, type RunInput, type RunOutput, type Sandbox } from '../../src/runtime/sandbox/index.js';

// The sandbox as its callers use it: real isolates in real runner processes. What a handler gets
// (event behind the missing-field Proxy, context with mutations, webhooks and store), what comes
// back, and the errors of spec 7 and limits of spec 8. The abuse suite is sandbox-abuse.test.ts.

const LISTING = { type: 'Listing', id: 'lst_1', sku: 'SKU-1', marketplaceId: 'ATVPDKIKX0DER', price: 45.99 };

function input(code: string, more: Partial<RunInput> = {}): RunInput {
  return {
    code,
    event: eventFixture('ANY_OFFER_CHANGED'),
    context: { listing: LISTING },
    webhooks: ['slack'],
    store: {},
    ...more,
  };
}

const ok = (out: RunOutput) => {
  if (!out.ok) expect.fail(`expected a clean run, got ${out.error.code}: ${out.error.message}`);
  return out;
};
const failed = (out: RunOutput) => {
  if (out.ok) expect.fail(`expected a failed run, got ${JSON.stringify(out)}`);
  return out;
};

describe('automation sandbox', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  const run = (code: string, more?: Partial<RunInput>) => sandbox.run(input(code, more));

  before(() => {
    sandbox = createSandbox({ runners: 2, storeLimits: { valueBytes: 100, totalBytes: 300 } });
  });
  after(() => sandbox.close());

  describe('a clean run', () => {
    it('returns the queued mutations, the webhook posts and the store effects, and ignores the return value', async () => {
      const out = ok(
        await run(
          `async function handle(event, context) {
            const price = event.Payload.AnyOfferChangedNotification.Summary.LowestPrices[0].LandedPrice.Amount;
            context.mutations.push({ target: context.listing, action: 'update',
              payload: { productType: 'PRODUCT', patches: [{ op: 'replace', path: '/attributes/purchasable_offer', value: [{ our_price: Math.round(price * 100 - 1) / 100 }] }] } });
            context.webhooks.slack.post('repriced ' + context.listing.sku);
            context.webhooks.slack.post({ blocks: [1, 2] });
            await null;
            return 'ignored';
          }`,
        ),
      );
      // the target comes back as its type and id, all admission reads of it
      expect(out.mutations).to.deep.equal([
        {
          target: { type: LISTING.type, id: LISTING.id },
          action: 'update',
          payload: {
            productType: 'PRODUCT',
            patches: [{ op: 'replace', path: '/attributes/purchasable_offer', value: [{ our_price: 45.98 }] }],
          },
        },
      ]);
      expect(out.webhookPosts).to.deep.equal([
        { webhook: 'slack', payload: { text: 'repriced SKU-1' } },
        { webhook: 'slack', payload: { blocks: [1, 2] } },
      ]);
      expect(out.storeEffects).to.deep.equal([]);
      expect(out.durationMs).to.be.greaterThan(0);
    });

    it('awaits an async handle, within the deadline, before copying the outbox out', async () => {
      const out = ok(
        await run(`async function handle(event, context) {
          for (let i = 0; i < 3; i++) await Promise.resolve(i);
          await new Promise((resolve) => resolve());
          context.mutations.push({ n: 3 });
        }`),
      );
      expect(out.mutations).to.deep.equal([{ n: 3 }]);
    });

    it('posts a snapshot of the payload: changing it after post() changes nothing sent', async () => {
      const out = ok(await run(`function handle(e, c) { const p = { n: 1 }; c.webhooks.slack.post(p); p.n = 2; }`));
      expect(out.webhookPosts).to.deep.equal([{ webhook: 'slack', payload: { n: 1 } }]);
    });

    it('has an empty context.webhooks when the account has none enabled', async () => {
      const out = failed(
        await run(`function handle(e, c) { console.log(JSON.stringify(c.webhooks)); c.webhooks.slack.post('x'); }`, {
          webhooks: [],
        }),
      );
      expect(out.logs[0]!.message).to.equal('{}');
      expect(out.error.message).to.match(/^TypeError: Cannot read properties of undefined \(reading 'post'\)/);
    });
  });

  describe('context.store', () => {
    it('reads the snapshot, sees its own writes, hands out copies and buffers set and delete', async () => {
      const out = ok(
        await run(
          `function handle(e, c) {
            const s = c.store;
            const seen = s.get('seen'); seen.push('mutated'); 
            console.log(JSON.stringify([s.get('seen'), s.get('missing'), s.get('count')]));
            s.set('count', s.get('count') + 1);
            s.set('last', { at: 'now' });
            s.delete('old');
            s.set('temp', 1); s.delete('temp');
            console.log(JSON.stringify([s.get('count'), s.get('last'), s.get('old'), s.get('temp')]));
          }`,
          { store: { seen: ['a'], count: 41, old: true } },
        ),
      );
      expect(out.logs.map((l) => l.message)).to.deep.equal(['[["a"],null,41]', '[42,{"at":"now"},null,null]']);
      expect(out.storeEffects).to.deep.equal([
        { op: 'set', key: 'count', value: 42 },
        { op: 'set', key: 'last', value: { at: 'now' } },
        { op: 'delete', key: 'old' },
        { op: 'delete', key: 'temp' },
      ]);
    });

    it('refuses a value that is not JSON, even when the code catches the error', async () => {
      const out = failed(await run(`function handle(e, c) { try { c.store.set('f', () => 1); } catch {} }`));
      expect(out.error).to.deep.equal({
        code: 'execution_error',
        message: 'context.store.set("f"): a function is not JSON-serializable',
      });
    });

    it('enforces the store limits it is given, per value and in total', async () => {
      const perValue = failed(await run(`function handle(e, c) { c.store.set('big', 'x'.repeat(200)); }`));
      expect(perValue.error.message).to.equal(
        'context.store.set("big"): the value is 202 bytes; the limit is 100 bytes per value',
      );
      const total = failed(
        await run(`function handle(e, c) { c.store.set('d', 'x'.repeat(60)); }`, {
          store: { a: 'x'.repeat(80), b: 'x'.repeat(80), c: 'x'.repeat(80) },
        }),
      );
      expect(total.error.message).to.equal(
        'context.store would hold 312 bytes after this run; the limit is 300 bytes per automation',
      );
      ok(
        await run(`function handle(e, c) { c.store.delete('a'); c.store.set('d', 'x'.repeat(60)); }`, {
          store: { a: 'x'.repeat(80), b: 'x'.repeat(80), c: 'x'.repeat(80) },
        }),
      );
    });
  });

  describe('missing-field reads', () => {
    it('names each key read that the payload lacked, once, with the keys present at that level', async () => {
      const out = ok(
        await run(`function handle(event, context) {
          const n = event.Payload.AnyOfferChangedNotification;
          n.OfferChangeTrigger.Foo; n.OfferChangeTrigger.Foo;
          n.Summary.LowestPrices[0].Bar;
          event.Nope;
          n.Offers.length;
        }`),
      );
      expect(out.missingFieldReads).to.deep.equal([
        {
          path: 'Payload.AnyOfferChangedNotification.OfferChangeTrigger.Foo',
          available: ['MarketplaceId', 'ASIN', 'ItemCondition', 'TimeOfOfferChange', 'OfferChangeType'],
        },
        {
          path: 'Payload.AnyOfferChangedNotification.Summary.LowestPrices[0].Bar',
          available: ['Condition', 'FulfillmentChannel', 'LandedPrice', 'ListingPrice', 'Shipping'],
        },
        {
          path: 'Nope',
          available: Object.keys(eventFixture('ANY_OFFER_CHANGED')!),
        },
      ]);
    });

    it('keeps e.a === e.a, and ignores then, toJSON and symbol probes (await, JSON.stringify, spreading)', async () => {
      const out = ok(
        await run(`async function handle(event, context) {
          const same = event.Payload === event.Payload && event.Payload.AnyOfferChangedNotification.Summary === event.Payload.AnyOfferChangedNotification.Summary;
          await event;
          await event.Payload;
          JSON.stringify(event);
          const copy = { ...event.Payload };
          for (const offer of event.Payload.AnyOfferChangedNotification.Offers) offer.SellerId;
          console.log(same, String(event.Payload[Symbol.toStringTag]), Array.isArray(event.Payload.AnyOfferChangedNotification.Offers));
        }`),
      );
      expect(out.missingFieldReads).to.deep.equal([]);
      expect(out.logs[0]!.message).to.equal('true undefined true');
    });

    it('is returned by a failed run too', async () => {
      const out = failed(await run(`function handle(event, context) { event.Payload.Missing.Deeper; }`));
      expect(out.error.message).to.match(
        /^TypeError: Cannot read properties of undefined \(reading 'Deeper'\) \(line 1/,
      );
      expect(out.missingFieldReads.map((r) => r.path)).to.deep.equal(['Payload.Missing']);
    });
  });

  describe('console', () => {
    it('keeps log, info, warn and error in one buffer, formatting values as JSON', async () => {
      const out = ok(
        await run(`function handle(e, c) {
          console.log('a', 1, { b: [2] }, null, undefined);
          console.info('i'); console.warn('w'); console.error(new RangeError('bad'));
        }`),
      );
      expect(out.logs.map((l) => l.level)).to.deep.equal(['log', 'info', 'warn', 'error']);
      expect(out.logs[0]!.message).to.equal('a 1 {"b":[2]} null undefined');
      expect(out.logs[3]!.message).to.match(/^RangeError: bad\n {4}at handle \(automation\.js:3:/);
    });

    it('cuts a line to 2,000 bytes and says so, and keeps 100 lines, the last saying how many were dropped', async () => {
      const out = ok(
        await run(`function handle(e, c) {
          console.log('é'.repeat(5000));
          for (let i = 0; i < 150; i++) console.log('line ' + i);
        }`),
      );
      const first = out.logs[0]!.message;
      expect(Buffer.byteLength(first)).to.be.at.most(RUN_LIMITS.consoleLineBytes);
      expect(first).to.match(/^(é)+ …\[truncated: the line had 5,000 characters; a console line keeps 2,000 bytes\]$/);
      expect(out.logs).to.have.length(RUN_LIMITS.consoleLines);
      expect(out.logs[98]!.message).to.equal('line 97');
      expect(out.logs[99]).to.deep.equal({
        level: 'warn',
        message: '[console: 52 more lines were dropped; a run keeps 100 lines]',
      });
    });

    it('keeps the lines written before a run times out', async () => {
      const quick = createSandbox({ runners: 1, deadlineMs: 300 });
      try {
        const out = failed(
          await quick.run(input(`function handle(e, c) { console.log('before the loop'); for (;;); }`)),
        );
        expect(out.error.message).to.equal('timed out after 300 ms');
        expect(out.logs).to.deep.equal([{ level: 'log', message: 'before the loop' }]);
      } finally {
        await quick.close();
      }
    });
  });

  describe('errors', () => {
    it('reports what was thrown, with its line and column in the automation', async () => {
      const out = failed(
        await run(`function handle(event, context) {\n  const x = 1;\n  throw new Error('no price for ' + x);\n}`),
      );
      expect(out.error).to.deep.equal({ code: 'execution_error', message: 'Error: no price for 1 (line 3, column 9)' });
      const value = failed(await run(`function handle(event, context) { throw 'just a string'; }`));
      expect(value.error.message).to.equal('handle threw just a string');
      const top = failed(await run(`const limit = undefined.max;\nfunction handle(event, context) {}`));
      expect(top.error.message).to.match(
        /^TypeError: Cannot read properties of undefined \(reading 'max'\) \(line 1, column \d+\)$/,
      );
    });

    it('reports a syntax error and a missing or wrongly shaped handle as saving does', async () => {
      expect(failed(await run(`function handle(event, context) {\n  return event +;\n}`)).error.message).to.equal(
        'line 2, column 17: Unexpected token',
      );
      expect(failed(await run(`function hendle(event, context) {}`)).error.message).to.match(
        /^no function named handle/,
      );
      expect(failed(await run(`function handle(event) {}`)).error.message).to.match(
        /^handle must be declared with exactly 2 parameters \(event, context\); it has 1/,
      );
      expect(failed(await run(`function handle(a, b) {}\nhandle = 42;`)).error.message).to.equal(
        'handle is not a function (it is a number)',
      );
      // a runner checks a text once: the same text gets the same answer on every run, on every runner
      for (let i = 0; i < 3; i++)
        expect(failed(await run(`function handle(event, context) {\n  return event +;\n}`)).error.message).to.equal(
          'line 2, column 17: Unexpected token',
        );
    });

    it('answers code_too_large and event_too_large past 100,000 bytes, without starting a run', async () => {
      const pad = (n: number) => `function handle(event, context) {}\n//${'x'.repeat(n - 37)}`;
      expect(pad(RUN_LIMITS.codeBytes)).to.have.length(RUN_LIMITS.codeBytes);
      ok(await run(pad(RUN_LIMITS.codeBytes)));
      expect(failed(await run(pad(RUN_LIMITS.codeBytes) + 'é')).error).to.deep.equal({
        code: 'code_too_large',
        message: 'the code is 100,002 bytes; the limit is 100,000 bytes',
      });
      const event = (n: number) => ({ s: 'x'.repeat(n - 8) });
      expect(JSON.stringify(event(RUN_LIMITS.fabricatedEventBytes))).to.have.length(RUN_LIMITS.fabricatedEventBytes);
      ok(await run('function handle(e, c) {}', { event: event(RUN_LIMITS.fabricatedEventBytes) }));
      expect(
        failed(await run('function handle(e, c) {}', { event: event(RUN_LIMITS.fabricatedEventBytes + 1) })).error,
      ).to.deep.equal({
        code: 'event_too_large',
        message: 'the event is 100,001 bytes serialized; the limit is 100,000 bytes',
      });
    });

    it('stops a run at the real 5 s default deadline, promises included', async function () {
      this.timeout(30_000);
      const real = createSandbox({ runners: 2 });
      try {
        const [sync, pending] = await Promise.all([
          real.run(input(`function handle(e, c) { for (;;); }`)),
          real.run(input(`async function handle(e, c) { await new Promise(() => {}); }`)),
        ]);
        for (const out of [failed(sync), failed(pending)]) {
          expect(out.error).to.deep.equal({ code: 'execution_error', message: 'timed out after 5000 ms' });
          expect(out.durationMs).to.be.within(RUN_LIMITS.runTimeMs, RUN_LIMITS.runTimeMs + 2_000);
        }
        ok(await real.run(input('function handle(e, c) {}')));
      } finally {
        await real.close();
      }
    });
  });

  describe('the pool', () => {
    it('runs on a fixed number of runner processes, none of them this one, built and without secrets', async () => {
      const runners = sandbox.runners();
      expect(runners).to.have.length(2);
      for (const r of runners) {
        expect(r.pid).to.be.a('number').and.not.equal(process.pid);
        const args = readFileSync(`/proc/${r.pid}/cmdline`, 'utf8').split('\0');
        expect(args).to.include('--no-node-snapshot');
        expect(args.find((a) => a.endsWith('runner.js'))).to.match(/\/dist\/src\/runtime\/sandbox\/runner\.js$/);
        // nothing but the IPC channel's variables that Node adds for a forked child
        const environment = readFileSync(`/proc/${r.pid}/environ`, 'utf8').split('\0').filter(Boolean);
        expect(environment.filter((v) => !v.startsWith('NODE_CHANNEL_'))).to.deep.equal([]);
      }
    });

    it('gives every run a fresh isolate: what one run leaves on its globals, prototypes or prelude, the next never sees', async () => {
      // one runner, so each run lands in the isolate the runner made while the previous run was finishing
      const one = createSandbox({ runners: 1 });
      try {
        const taint = `function handle(e, c) {
          globalThis.left = 'behind'; Object.prototype.polluted = true; Array.prototype.push = () => 0;
          console.log('tainted');
        }`;
        const probe = `function handle(e, c) {
          c.mutations.push({ target: c.listing, action: 'update', payload: {} });
          console.log(typeof globalThis.left, ({}).polluted === undefined, c.mutations.length);
        }`;
        for (let i = 0; i < 3; i++) {
          expect(ok(await one.run(input(taint))).logs.map((l) => l.message)).to.deep.equal(['tainted']);
          expect(ok(await one.run(input(probe))).logs.map((l) => l.message)).to.deep.equal(['undefined true 1']);
        }
      } finally {
        await one.close();
      }
    });

    it('answers code too deeply nested to parse with execution_error, and the runner goes on', async () => {
      const one = createSandbox({ runners: 1 });
      try {
        for (let i = 0; i < 3; i++) {
          const out = failed(
            await one.run(input(`function handle(e, c) { return ${'('.repeat(45_000)}1${')'.repeat(45_000)}; }`)),
          );
          expect(out.error.code).to.equal('execution_error');
          expect(out.error.message).to.match(/stack|nest|deep/i);
        }
        expect(ok(await one.run(input('function handle(e, c) { console.log("still here"); }'))).logs).to.have.length(1);
      } finally {
        await one.close();
      }
    });

    it('answers a closed sandbox with execution_error', async () => {
      const closing = createSandbox({ runners: 1 });
      await closing.close();
      expect(failed(await closing.run(input('function handle(e, c) {}'))).error).to.deep.equal({
        code: 'execution_error',
        message: 'the sandbox is closed',
      });
      expect(closing.runners()).to.deep.equal([]);
    });
  });
});
