import { expect } from 'chai';
import { RUN_LIMITS } from '../../src/runtime/contracts/limits.js';
import { createSandbox, type RunInput, type RunOutput, type Sandbox } from '../../src/runtime/sandbox/index.js';

// The escape and abuse suite (the sandbox's acceptance criteria): every case must end contained, with
// execution_error or a clean result, and the sandbox must answer a probe run right after it that
// finds a clean realm (unpolluted built-ins, no host objects, a working console and outbox).
// The cases run concurrently through one pool, most of them under a short deadline; the real 5 s
// default is proven in sandbox.test.ts.

const DEADLINE_MS = 1_500;
const STOPPED = /^(timed out after 1500 ms|memory limit 64 MB exceeded)$/;
const OUT_OF_ROOM =
  /^(timed out after 1500 ms|memory limit 64 MB exceeded|RangeError: (Invalid string length|Invalid array length|Array buffer allocation failed|Map maximum size exceeded).*)$/;

type Expect = { error: RegExp; logs?: string[] } | { clean: (out: Extract<RunOutput, { ok: true }>) => void };
interface Case {
  name: string;
  code: string;
  input?: Partial<RunInput>;
  expect: Expect;
}

const logged = (...lines: string[]) => ({
  clean: (out: Extract<RunOutput, { ok: true }>) => expect(out.logs.map((l) => l.message)).to.deep.equal(lines),
});
const LISTING = { type: 'Listing', id: 'lst_1', sku: 'SKU-1' };
const update = (payload: string) => `{ target: c.listing, action: 'update', payload: ${payload} }`;

const CASES: Case[] = [
  // time
  { name: 'a synchronous infinite loop', code: 'function handle(e, c) { for (;;); }', expect: { error: STOPPED } },
  {
    name: 'an asynchronous infinite loop (microtasks)',
    code: 'async function handle(e, c) { for (;;) await null; }',
    expect: { error: STOPPED },
  },
  {
    name: 'a promise that never settles',
    code: 'async function handle(e, c) { await new Promise(() => {}); }',
    expect: { error: STOPPED },
  },
  {
    name: 'an infinite loop at the top level',
    code: 'while (true);\nfunction handle(e, c) {}',
    expect: { error: STOPPED },
  },
  {
    name: 'a getter that loops while the outbox is copied out',
    code: 'function handle(e, c) { c.mutations.push({ get payload() { for (;;); } }); }',
    expect: { error: STOPPED },
  },
  {
    name: 'a thrown error whose message getter loops',
    code: 'function handle(e, c) { const err = new Error(); Object.defineProperty(err, "message", { get() { for (;;); } }); throw err; }',
    expect: { error: STOPPED },
  },
  // memory
  {
    name: 'a memory bomb: an ever-growing array',
    code: 'function handle(e, c) { const a = []; for (;;) a.push({ n: Math.random(), s: "x" + a.length }); }',
    expect: { error: OUT_OF_ROOM },
  },
  {
    name: 'a memory bomb: a string doubling',
    code: 'function handle(e, c) { let s = "ab"; for (;;) s += s; }',
    expect: { error: OUT_OF_ROOM },
  },
  {
    name: 'a memory bomb: a map of strings',
    code: 'function handle(e, c) { const m = new Map(); for (let i = 0; ; i++) m.set(i, "k" + i); }',
    expect: { error: OUT_OF_ROOM },
  },
  {
    name: 'a memory bomb: typed arrays outside the heap',
    code: 'function handle(e, c) { const a = []; for (;;) a.push(new Uint8Array(4e6).fill(1)); }',
    expect: { error: OUT_OF_ROOM },
  },
  {
    name: 'a memory bomb across promise continuations',
    code: 'async function handle(e, c) { const a = []; for (;;) { await 0; a.push(new Array(1e5).fill(1.5)); } }',
    expect: { error: OUT_OF_ROOM },
  },
  {
    name: 'deep recursion',
    code: 'function handle(e, c) { const f = (n) => f(n + 1) + 1; f(0); }',
    expect: { error: /^RangeError: Maximum call stack size exceeded \(line 1, column \d+\)$/ },
  },
  // reaching the host
  {
    name: 'reaching process, require, module and the host timers',
    code: `function handle(e, c) { console.log([typeof process, typeof require, typeof module, typeof Buffer, typeof setTimeout, typeof setImmediate, typeof fetch, typeof queueMicrotask].join()); }`,
    expect: logged('undefined,undefined,undefined,undefined,undefined,undefined,undefined,undefined'),
  },
  {
    name: 'import() of a Node module',
    code: 'async function handle(e, c) { const fs = await import("node:fs"); fs.writeFileSync("/tmp/pwned", "x"); }',
    expect: { error: /^Error: Not supported/ },
  },
  {
    name: "the host's globalThis: the isolate's own holds only the language",
    code: `function handle(e, c) {
      const names = Object.getOwnPropertyNames(globalThis);
      const host = ['process', 'require', 'global', 'Buffer', 'ivm', 'isolatedVm', '_ivm', 'fetch', 'WebSocket', 'setTimeout', 'structuredClone'];
      console.log(names.filter((n) => host.includes(n)).join() || 'none', names.length < 80);
    }`,
    expect: logged('none true'),
  },
  {
    name: 'constructor.constructor from the event, the context and the console',
    code: `function handle(e, c) {
      const probe = 'return typeof process + "," + typeof require';
      console.log(e.constructor.constructor(probe)(), c.constructor.constructor(probe)(), console.log.constructor(probe)(),
        c.store.get.constructor(probe)(), c.webhooks.hook.post.constructor(probe)(), c.mutations.push.constructor(probe)());
    }`,
    expect: logged(
      'undefined,undefined undefined,undefined undefined,undefined undefined,undefined undefined,undefined undefined,undefined',
    ),
  },
  {
    name: 'Function and an async function constructor',
    code: `async function handle(e, c) {
      const AsyncFunction = (async () => {}).constructor;
      console.log(Function('return typeof process')(), await AsyncFunction('return typeof require')());
    }`,
    expect: logged('undefined undefined'),
  },
  {
    name: 'eval works inside the isolate and reaches nothing outside it',
    code: `function handle(e, c) { console.log(eval('1 + 1'), (0, eval)('typeof process'), eval('this === globalThis')); }`,
    expect: logged('2 undefined true'),
  },
  {
    name: 'Error.prepareStackTrace collecting call sites across the sandbox functions',
    code: `function handle(e, c) {
      const seen = [];
      Error.prepareStackTrace = (err, frames) => { for (const f of frames) seen.push(f.getThis(), f.getFunction()); return 'x'; };
      try { c.store.set('k', 1n); } catch (err) { err.stack; }
      try { null.x; } catch (err) { err.stack; }
      const reachable = seen.filter(Boolean).map((v) => { try { return v.constructor.constructor('return typeof process')(); } catch { return 'throws'; } });
      console.log(reachable.every((t) => t === 'undefined' || t === 'throws'));
    }`,
    expect: { error: /^context\.store\.set\("k"\): the value is not JSON-serializable/, logs: ['true'] },
  },
  {
    name: 'SharedArrayBuffer is not there',
    code: 'function handle(e, c) { console.log(typeof SharedArrayBuffer); new SharedArrayBuffer(16); }',
    expect: { error: /^ReferenceError: SharedArrayBuffer is not defined/, logs: ['undefined'] },
  },
  {
    name: 'Atomics.wait is not there',
    code: 'function handle(e, c) { Atomics.wait(new Int32Array(4), 0, 0); }',
    expect: { error: /^ReferenceError: Atomics is not defined/ },
  },
  {
    name: 'WebAssembly (memory outside the heap, compiled code) is not there',
    code: 'function handle(e, c) { new WebAssembly.Memory({ initial: 1, maximum: 65536 }); }',
    expect: { error: /^ReferenceError: WebAssembly is not defined/ },
  },
  // prototype pollution
  {
    name: 'prototype pollution through a __proto__ key of the event',
    code: `function handle(e, c) {
      const merged = Object.assign({}, e.payload);
      e.__proto__.polluted = true;
      Object.prototype.hacked = 'yes';
      console.log(merged.isAdmin, ({}).polluted);
    }`,
    input: { event: JSON.parse('{"payload":{"__proto__":{"isAdmin":true}},"__proto__":{"x":1}}') as unknown },
    expect: logged('true undefined'),
  },
  {
    name: 'prototype pollution through the context and the built-ins',
    code: `function handle(e, c) {
      c.__proto__.__proto__ = null;
      Object.prototype.toJSON = () => 'evil';
      Array.prototype.push = function () { throw new Error('broken push'); };
      JSON.stringify = () => '"evil"';
      JSON.parse = () => ({ evil: true });
      Object.defineProperty(Array.prototype, '0', { set() { throw new Error('trap'); }, configurable: true });
      c.mutations[c.mutations.length] = 1;
    }`,
    expect: { error: /^Error: trap/ },
  },
  {
    name: 'tampering with the built-ins the sandbox uses, then queueing normally',
    code: `function handle(e, c) {
      Reflect.apply = () => { throw new Error('hijacked'); };
      Object.defineProperty = () => { throw new Error('hijacked'); };
      WeakMap.prototype.get = () => undefined;
      String.prototype.slice = () => 'hijacked';
      e.Payload;
      console.log('y'.repeat(3000).length);
      c.mutations.unshift({ action: 'update', payload: { ok: true } });
    }`,
    input: { event: { Payload: {} } },
    expect: {
      clean: (out) => {
        expect(out.mutations).to.deep.equal([{ action: 'update', payload: { ok: true } }]);
        expect(Buffer.byteLength(out.logs[0]!.message)).to.equal(4);
      },
    },
  },
  {
    name: 'replacing context.mutations, webhooks and store',
    code: `function handle(e, c) {
      'use strict';
      try { c.mutations = [{ forged: true }]; } catch (err) { console.log(err.constructor.name); }
      try { c.store = null; } catch (err) { console.log(err.constructor.name); }
      try { c.webhooks.hook = { post() {} }; } catch (err) { console.log(err.constructor.name); }
      c.mutations.push({ real: true });
    }`,
    expect: {
      clean: (out) => {
        expect(out.logs.map((l) => l.message)).to.deep.equal(['TypeError', 'TypeError', 'TypeError']);
        expect(out.mutations).to.deep.equal([{ real: true }]);
      },
    },
  },
  // copy-out
  {
    name: 'a getter that throws while the outbox is copied out',
    code: `function handle(e, c) { c.mutations.push({ target: c.listing, get payload() { throw new Error('boom'); } }); }`,
    expect: { error: /^context\.mutations could not be copied out: boom$/ },
  },
  {
    name: 'a toJSON that throws, and a Proxy whose traps throw',
    code: `function handle(e, c) {
      c.mutations.push(new Proxy({}, { ownKeys() { throw new Error('no keys'); } }));
      c.mutations.push({ toJSON() { throw new Error('no json'); } });
    }`,
    expect: { error: /^context\.mutations could not be copied out: no keys$/ },
  },
  {
    name: 'a cyclic request and a BigInt in the outbox',
    code: `function handle(e, c) { const m = { payload: { n: 1n } }; m.self = m; c.mutations.push(m); }`,
    expect: {
      error:
        /^context\.mutations could not be copied out: (Converting circular structure|Do not know how to serialize a BigInt)/,
    },
  },
  {
    name: 'a billion-element sparse outbox',
    code: 'function handle(e, c) { c.mutations.length = 1e9; }',
    expect: {
      error:
        /^(context\.mutations could not be copied out: Invalid string length|timed out after 1500 ms|memory limit 64 MB exceeded)$/,
    },
  },
  // output limits
  {
    name: 'an outbox of 51 requests',
    code: `function handle(e, c) { for (let i = 0; i < 51; i++) c.mutations.push(${update('{ i }')}); }`,
    expect: { error: /^context\.mutations holds 51 requests; a run may queue at most 50$/ },
  },
  {
    name: 'an outbox over 100,000 bytes of payloads',
    code: `function handle(e, c) { for (let i = 0; i < 2; i++) c.mutations.push(${update("{ note: 'x'.repeat(50000) }")}); }`,
    expect: {
      error:
        /^the payloads in context\.mutations add up to 100,022 bytes; a run may queue at most 100,000 bytes of payloads$/,
    },
  },
  {
    name: 'an outbox over 500,000 bytes of output (large fields beside the payload)',
    code: `function handle(e, c) { const blob = 'x'.repeat(120000); for (let i = 0; i < 5; i++) c.mutations.push({ target: c.listing, action: 'update', payload: {}, blob }); }`,
    expect: {
      error:
        /^the run's output \(context\.mutations and webhook posts\) is at least 600,\d{3} bytes; the limit is 500,000 bytes per run$/,
    },
  },
  {
    name: 'an outbox under 500,000 characters but over 500,000 bytes',
    code: `function handle(e, c) { const blob = 'é'.repeat(60000); for (let i = 0; i < 5; i++) c.mutations.push({ target: c.listing, action: 'update', payload: {}, blob }); }`,
    expect: {
      error:
        /^the run's output \(context\.mutations and webhook posts\) is 600,\d{3} bytes; the limit is 500,000 bytes per run$/,
    },
  },
  {
    name: 'large targets count as their type and id, as the outbox counts them',
    code: `function handle(e, c) { const big = { ...c.listing, blob: 'x'.repeat(120000), get id() { return 'lst_1'; } }; for (let i = 0; i < 5; i++) c.mutations.push({ target: big, action: 'update', payload: {} }); }`,
    expect: {
      clean: (out) => {
        expect(out.mutations).to.have.length(5);
        for (const m of out.mutations)
          expect(m).to.deep.equal({ target: { type: 'Listing', id: 'lst_1' }, action: 'update', payload: {} });
      },
    },
  },
  {
    name: 'webhook posts over 500,000 bytes of output',
    code: `function handle(e, c) { for (let i = 0; i < 100; i++) c.webhooks.hook.post('x'.repeat(10000)); }`,
    expect: {
      error:
        /^context\.webhooks\.hook\.post: the run's webhook posts are over the limit of 500,000 bytes of output per run$/,
    },
  },
  {
    name: 'a webhook payload that is not JSON (a function)',
    code: 'function handle(e, c) { c.webhooks.hook.post(() => 1); }',
    expect: { error: /^context\.webhooks\.hook\.post: a function is not JSON-serializable$/ },
  },
  {
    name: 'a webhook payload that is not JSON, the error caught by the code',
    code: 'function handle(e, c) { try { c.webhooks.hook.post({ n: 10n }); } catch {} c.mutations.push({}); }',
    expect: {
      error:
        /^context\.webhooks\.hook\.post: the value is not JSON-serializable \(Do not know how to serialize a BigInt\)$/,
    },
  },
  // console
  {
    name: 'a huge console line',
    code: "function handle(e, c) { console.log('x'.repeat(5e6)); }",
    expect: {
      clean: (out) => {
        expect(out.logs).to.have.length(1);
        expect(Buffer.byteLength(out.logs[0]!.message)).to.be.at.most(RUN_LIMITS.consoleLineBytes);
        expect(out.logs[0]!.message).to.match(/truncated: the line had 5,000,000 characters/);
      },
    },
  },
  {
    name: 'a flood of console lines',
    code: "function handle(e, c) { for (let i = 0; i < 1e6; i++) console.error('flood', i); }",
    expect: {
      clean: (out) => {
        expect(out.logs).to.have.length(RUN_LIMITS.consoleLines);
        expect(out.logs[99]!.message).to.equal('[console: 999,901 more lines were dropped; a run keeps 100 lines]');
      },
    },
  },
  {
    name: 'binary console output: control characters and lone surrogates',
    code: `function handle(e, c) {
      let s = ''; for (let i = 0; i < 4000; i++) s += String.fromCharCode((i * 7919) % 65536);
      console.log(s); console.log('\\u0000\\udfff\\ud800\\uffff'); console.log(new Uint8Array([0, 255, 1]));
    }`,
    expect: {
      clean: (out) => {
        expect(out.logs).to.have.length(3);
        for (const { message } of out.logs) {
          expect(Buffer.byteLength(message)).to.be.at.most(RUN_LIMITS.consoleLineBytes);
          expect(Buffer.from(message, 'utf8').toString('utf8'), 'well-formed UTF-16').to.equal(message);
        }
        expect(out.logs[1]!.message).to.equal('\u0000\ufffd\ufffd\uffff');
        expect(out.logs[2]!.message).to.equal('{"0":0,"1":255,"2":1}');
      },
    },
  },
  {
    name: 'console values that fight back: throwing toString, revoked proxies, symbols',
    code: `function handle(e, c) {
      const { proxy, revoke } = Proxy.revocable({}, {}); revoke();
      console.log({ toJSON() { throw 1; }, toString() { throw 2; } }, proxy, Symbol('s'), 10n);
    }`,
    expect: logged('[a value that cannot be shown] [a value that cannot be shown] Symbol(s) 10'),
  },
  // shapes of handle
  {
    name: 'handle replaced by a non-function after it was declared',
    code: 'var handle = function (e, c) {};\nhandle = { call() {} };',
    expect: { error: /^handle is not a function \(it is an object\)$/ },
  },
  {
    name: 'a thrown value that cannot be turned into text',
    code: 'function handle(e, c) { throw Object.create(null); }',
    expect: { error: /^handle threw |^Error: / },
  },
  {
    name: 'a frozen event read through the missing-field Proxy',
    code: `function handle(e, c) { Object.freeze(e); console.log(e.a.b, e.a === e.a, e.zzz); }`,
    input: { event: { a: { b: 1 } } },
    expect: {
      clean: (out) => {
        expect(out.logs[0]!.message).to.equal('1 true undefined');
        expect(out.missingFieldReads).to.deep.equal([{ path: 'zzz', available: ['a'] }]);
      },
    },
  },
  {
    name: 'a flood of distinct missing keys',
    code: `function handle(e, c) { for (let i = 0; i < 20000; i++) e['k' + i]; e['x'.repeat(5000)]; }`,
    expect: {
      clean: (out) => expect(out.missingFieldReads).to.have.length(RUN_LIMITS.missingFieldReads),
    },
  },
];

/** Run right after every case: a clean realm, a working console, outbox, store and webhooks. */
const PROBE = `function handle(e, c) {
  c.mutations.push({ probe: [1, 2] });
  c.store.set('k', { v: 1 });
  c.webhooks.hook.post('ok');
  console.log(JSON.stringify([1]), typeof process, ({}).hacked, ({}).polluted, Array.prototype.push.name, JSON.parse('{"a":1}').a, typeof WebAssembly);
}`;

function input(code: string, more: Partial<RunInput> = {}): RunInput {
  return {
    code,
    event: { Payload: { ASIN: 'B0' } },
    context: { listing: LISTING },
    webhooks: ['hook'],
    store: {},
    ...more,
  };
}

describe('automation sandbox: escape and abuse suite', function () {
  this.timeout(180_000);
  let sandbox: Sandbox;
  const results = new Map<string, { out: RunOutput; probe: RunOutput }>();

  before(async () => {
    sandbox = createSandbox({ runners: 6, deadlineMs: DEADLINE_MS });
    await Promise.all(
      CASES.map(async (c) => {
        const out = await sandbox.run(input(c.code, c.input));
        const probe = await sandbox.run(input(PROBE));
        results.set(c.name, { out, probe });
      }),
    );
  });
  after(() => sandbox?.close());

  for (const c of CASES)
    it(c.name, () => {
      const { out, probe } = results.get(c.name)!;
      if ('error' in c.expect) {
        if (out.ok) expect.fail(`expected execution_error, got a clean run: ${JSON.stringify(out).slice(0, 500)}`);
        expect(out.error.code).to.equal('execution_error');
        expect(out.error.message).to.match(c.expect.error);
        if (c.expect.logs) expect(out.logs.map((l) => l.message)).to.deep.equal(c.expect.logs);
      } else {
        if (!out.ok) expect.fail(`expected a clean run, got ${out.error.code}: ${out.error.message}`);
        c.expect.clean(out);
      }
      if (!probe.ok) expect.fail(`the probe after it failed: ${probe.error.message}`);
      expect(probe.logs.map((l) => l.message)).to.deep.equal(['[1] undefined undefined undefined push 1 undefined']);
      expect(probe.mutations).to.deep.equal([{ probe: [1, 2] }]);
      expect(probe.storeEffects).to.deep.equal([{ op: 'set', key: 'k', value: { v: 1 } }]);
      expect(probe.webhookPosts).to.deep.equal([{ webhook: 'hook', payload: { text: 'ok' } }]);
    });

  it('left this process untouched', () => {
    expect(({} as Record<string, unknown>).hacked).to.equal(undefined);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    expect(JSON.stringify({ a: [1] })).to.equal('{"a":[1]}');
    expect(typeof (Object.prototype as Record<string, unknown>).toJSON).to.equal('undefined');
  });

  describe('a runner killed mid-run', () => {
    let solo: Sandbox;
    before(() => {
      solo = createSandbox({ runners: 2, deadlineMs: 20_000 });
    });
    after(() => solo?.close());

    it('answers execution_error for its run only, and is replaced', async () => {
      // a long but finite run on the other runner must not notice
      const bystander = solo.run(
        input(
          `function handle(e, c) { const end = Date.now() + 1500; while (Date.now() < end); c.mutations.push({ done: true }); }`,
        ),
      );
      const victim = solo.run(input(`function handle(e, c) { console.log('started'); for (;;); }`));
      let busy: number[] = [];
      for (let i = 0; i < 600 && busy.length < 2; i++) {
        await new Promise((r) => setTimeout(r, 25));
        busy = solo.runners().flatMap((r) => (r.busy && r.pid ? [r.pid] : []));
      }
      expect(busy, 'both runners busy').to.have.length(2);
      // once the bystander is done, the one runner still busy is the victim's
      const done = await bystander;
      if (!done.ok) expect.fail(`the bystander failed: ${done.error.message}`);
      expect(done.mutations).to.deep.equal([{ done: true }]);
      const [pid] = solo.runners().flatMap((r) => (r.busy && r.pid ? [r.pid] : []));
      expect(pid).to.be.a('number');
      process.kill(pid!, 'SIGKILL');
      const out = await victim;
      if (out.ok) expect.fail('the killed run answered ok');
      expect(out.error).to.deep.equal({
        code: 'execution_error',
        message:
          'the sandbox runner process ended during the run (SIGKILL); it was replaced and nothing of this run was kept',
      });
      const after = await solo.run(input(PROBE));
      expect(after.ok).to.equal(true);
      expect(solo.runners().map((r) => r.pid)).to.not.include(pid);
      expect(solo.runners()).to.have.length(2);
    });
  });

  it(`counts the cases (at least 30)`, () => {
    const cases = CASES.length + 1; // + the runner killed mid-run
    console.log(`      abuse suite: ${cases} cases, each contained, each followed by a clean probe run`);
    expect(cases).to.be.at.least(30);
  });
});
