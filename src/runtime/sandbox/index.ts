import os from 'node:os';
import { RUN_LIMITS } from '../contracts/limits.js';
import { RunnerPool } from './pool.js';
import { failure } from './runner-process.js';
import { bytes, count } from './text.js';
import type { RunErrorCode, RunInput, RunJob, RunOutput, Sandbox, SandboxOptions } from './types.js';

// The automation sandbox: runs one `handle(event, context)` per call in a fresh isolated-vm
// isolate (64 MB, a 5 s wall deadline that covers async work), inside a pool of runner processes
// so that a V8 catastrophe or a memory blow-up ends a runner, never the process serving MCP.
//
//   const sandbox = createSandbox();
//   const out = await sandbox.run({ code, event, context, webhooks: ['slack'], store: {} });
//   out.ok ? out.mutations : out.error.code   // 'execution_error' | 'code_too_large' | 'event_too_large'
//   await sandbox.close();
//
// `run` never throws for anything the automation does. In the isolate, `context` is the given data
// plus `mutations` (an array to push requests onto), `webhooks.<name>.post(payload)` (a string is
// sent as { text }) and `store` (`get` reads the snapshot given, with this run's own writes;
// `set` and `delete` are buffered). What comes back are intents: `mutations` to validate and
// admit, `webhookPosts` to deliver and `storeEffects` to apply, all only after a successful live
// run; a dry run discards them. `missingFieldReads` lists keys read from `event` that it lacked,
// with the keys present at that level. How the limits of spec 8 are applied, and what the sandbox
// chose where the spec is silent, is in docs/decisions/039-sandbox-runner-processes.md and the two
// records after it.

export type * from './types.js';

// Twice the cores (4 to 8): a runner spends most of a run's wall time waiting for a core or for
// its messages, not running it, so with one per core the pool was the queue
// (docs/decisions/039-sandbox-runner-processes.md).
const DEFAULT_RUNNERS = Math.max(4, Math.min(8, 2 * os.availableParallelism()));
const GRACE_MS = 2_000;

/** The caller's input as the runner takes it, or the answer when it cannot be run at all. */
function prepare(
  input: RunInput,
  options: SandboxOptions & { deadlineMs: number; memoryMb: number },
): RunJob | RunOutput {
  const refuse = (code: RunErrorCode, message: string): RunOutput => failure(message, 0, code);
  if (typeof input.code !== 'string') return refuse('execution_error', 'code must be a string');
  const codeBytes = bytes(input.code);
  if (codeBytes > RUN_LIMITS.codeBytes)
    return refuse(
      'code_too_large',
      `the code is ${count(codeBytes)} bytes; the limit is ${count(RUN_LIMITS.codeBytes)} bytes`,
    );
  const json = (value: unknown, what: string): string | RunOutput => {
    try {
      const text = JSON.stringify(value);
      if (typeof text === 'string') return text;
    } catch {
      // reported below
    }
    return refuse('execution_error', `${what} is not JSON-serializable`);
  };
  const eventJson = json(input.event, 'the event');
  if (typeof eventJson !== 'string') return eventJson;
  const eventBytes = bytes(eventJson);
  if (eventBytes > RUN_LIMITS.fabricatedEventBytes)
    return refuse(
      'event_too_large',
      `the event is ${count(eventBytes)} bytes serialized; the limit is ${count(RUN_LIMITS.fabricatedEventBytes)} bytes`,
    );
  const isRecord = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isRecord(input.context)) return refuse('execution_error', 'the context must be an object');
  if (!isRecord(input.store)) return refuse('execution_error', 'the store snapshot must be an object');
  if (!Array.isArray(input.webhooks) || input.webhooks.some((w) => typeof w !== 'string'))
    return refuse('execution_error', 'webhooks must be a list of names');
  const contextJson = json(input.context, 'the context');
  if (typeof contextJson !== 'string') return contextJson;
  const storeJson = json(input.store, 'the store snapshot');
  if (typeof storeJson !== 'string') return storeJson;
  return {
    code: input.code,
    eventJson,
    contextJson,
    storeJson,
    webhooks: [...input.webhooks],
    deadlineMs: options.deadlineMs,
    memoryMb: options.memoryMb,
    ...(options.storeLimits ? { storeLimits: options.storeLimits } : {}),
  };
}

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const settings = {
    ...options,
    deadlineMs: options.deadlineMs ?? RUN_LIMITS.runTimeMs,
    memoryMb: options.memoryMb ?? RUN_LIMITS.memoryMb,
  };
  const pool = new RunnerPool({ size: options.runners ?? DEFAULT_RUNNERS, graceMs: GRACE_MS });
  return {
    async run(input) {
      const job = prepare(input, settings);
      return 'ok' in job ? job : pool.run(job);
    },
    runners: () => pool.describe(),
    close: () => pool.close(),
  };
}
