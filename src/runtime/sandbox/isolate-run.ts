import ivm from 'isolated-vm';
import { checkAutomationCode } from '../../domain/automation/code-check.js';
import { DomainError } from '../../domain/shared/errors.js';
import { RUN_LIMITS } from '../contracts/limits.js';
import { ConsoleBuffer } from './console-buffer.js';
import { copyOut } from './copy-out.js';
import { describeThrown, memoryMessage, timedOutMessage } from './messages.js';
import { MissingReads } from './missing-reads.js';
import { isolatePrelude, type PreludeSettings } from './prelude.js';
import type { RunJob, RunOutput } from './types.js';

// One run in a fresh isolate, inside a runner process (runner.ts): the prelude, the automation's
// code, then the entry that calls handle and copies the outbox out. A wall-clock timer disposes
// the isolate at the deadline, since isolated-vm's `timeout` counts synchronous time only and a
// promise that never settles would otherwise hold the run forever. Nothing isolated-vm gives the
// host (the entry's Reference, the context) is ever passed into the isolate; the two callbacks
// live in the prelude's closure, out of the automation's reach. No cachedData or snapshot is used.

export const CODE_FILENAME = 'automation.js';

const SETTINGS: PreludeSettings = {
  consoleLineChars: RUN_LIMITS.consoleLineBytes,
  outputChars: RUN_LIMITS.outputBytesPerRun,
  missingKeys: RUN_LIMITS.missingFieldKeys,
  missingPathChars: RUN_LIMITS.missingFieldPathChars,
  errorChars: 10_000,
};
const PRELUDE = `return (${isolatePrelude.toString()})($0, $1, $2);`;
const SETTINGS_JSON = JSON.stringify(SETTINGS);

/** Why the isolate stopped, from isolated-vm's error and what the run knows. */
function stopMessage(e: unknown, job: RunJob, timedOut: boolean, isolate: ivm.Isolate): string {
  const error = e instanceof Error ? e : new Error(String(e));
  if (timedOut || /timed out/i.test(error.message)) return timedOutMessage(job.deadlineMs);
  if (/memory limit/i.test(error.message) || isolate.isDisposed) return memoryMessage(job.memoryMb);
  return describeThrown(error.name, error.message, error.stack);
}

/** Disposing races isolated-vm's own disposal after a memory overrun, which makes a second one throw. */
function dispose(isolate: ivm.Isolate): void {
  try {
    if (!isolate.isDisposed) isolate.dispose();
  } catch {
    // already disposed
  }
}

// A runner runs the same few automations event after event: each text is checked once, not
// parsed again by every run (acorn takes milliseconds over a large automation). The oldest text
// goes once CHECKED_CODES are kept.
const CHECKED_CODES = 64;
const checked = new Map<string, string | undefined>();

/** Saving refuses such code already; a dry run of inline code gets the same words as execution_error. */
function codeProblem(code: string): string | undefined {
  if (checked.has(code)) return checked.get(code);
  let problem: string | undefined;
  try {
    checkAutomationCode(code);
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    problem = e.detail.replace(/^code: /, '');
  }
  if (checked.size >= CHECKED_CODES) checked.delete(checked.keys().next().value!);
  checked.set(code, problem);
  return problem;
}

/**
 * A fresh isolate with the prelude evaluated, made before a run needs it so its creation stays
 * off the run's path (the runner makes the next one while it waits). It has run no automation
 * code and serves exactly one run.
 */
export interface FreshIsolate {
  isolate: ivm.Isolate;
  context: ivm.Context;
  entry: ivm.Reference;
  logs: ConsoleBuffer;
  reads: MissingReads;
  memoryMb: number;
}

/** Makes a FreshIsolate of `memoryMb`; the prelude gets `timeoutMs` of synchronous time. */
export async function freshIsolate(
  memoryMb: number,
  onCatastrophicError?: (message: string) => void,
  timeoutMs: number = RUN_LIMITS.runTimeMs,
): Promise<FreshIsolate> {
  const logs = new ConsoleBuffer();
  const reads = new MissingReads();
  const isolate = new ivm.Isolate({ memoryLimit: memoryMb, onCatastrophicError });
  try {
    const context = await isolate.createContext();
    const entry = (await context.evalClosure(
      PRELUDE,
      [new ivm.Callback(logs.add), new ivm.Callback(reads.add), SETTINGS_JSON],
      { result: { reference: true }, timeout: timeoutMs },
    )) as ivm.Reference;
    return { isolate, context, entry, logs, reads, memoryMb };
  } catch (e) {
    dispose(isolate);
    throw e;
  }
}

/**
 * Runs `job` in `fresh` when it fits the job's memory limit (else in a new isolate), and
 * disposes of the isolate: one isolate, one run. The deadline counts from `started`, when the
 * runner took the job (a wait for `fresh` to be ready included).
 */
export async function runInIsolate(
  job: RunJob,
  onCatastrophicError?: (message: string) => void,
  fresh?: Promise<FreshIsolate | undefined>,
  started = performance.now(),
): Promise<RunOutput> {
  const remaining = () => Math.max(1, Math.ceil(job.deadlineMs - (performance.now() - started)));
  let made: FreshIsolate | undefined;
  try {
    made = await fresh;
    const problem = codeProblem(job.code);
    if (problem || (made && made.memoryMb !== job.memoryMb)) {
      if (made) dispose(made.isolate);
      if (problem) return failed(started, new ConsoleBuffer(), new MissingReads(), { message: problem });
      made = undefined;
    }
    made ??= await freshIsolate(job.memoryMb, onCatastrophicError, remaining());
  } catch (e) {
    // what the code check could not say (acorn overflowing its stack, say), or the isolate not made
    if (made) dispose(made.isolate);
    const error = e instanceof Error ? e : new Error(String(e));
    const message = describeThrown(error.name, error.message, error.stack);
    return failed(started, new ConsoleBuffer(), new MissingReads(), { message });
  }
  const { isolate, context, entry, logs, reads } = made;
  let timedOut = false;
  const backstop = setTimeout(() => {
    timedOut = true;
    dispose(isolate);
  }, remaining());
  try {
    const script = await isolate.compileScript(job.code, { filename: CODE_FILENAME });
    await script.run(context, { timeout: remaining() });
    const result: unknown = await entry.apply(
      undefined,
      [job.eventJson, job.contextJson, job.storeJson, JSON.stringify(job.webhooks)],
      { result: { promise: true, copy: true }, timeout: remaining() },
    );
    const out = copyOut(result, { webhooks: job.webhooks, storeJson: job.storeJson, storeLimits: job.storeLimits });
    if (!out.ok) return failed(started, logs, reads, out);
    return {
      ok: true,
      logs: logs.lines(out.dropped),
      mutations: out.mutations,
      webhookPosts: out.webhookPosts,
      storeEffects: out.storeEffects,
      missingFieldReads: reads.list(),
      durationMs: performance.now() - started,
    };
  } catch (e) {
    return failed(started, logs, reads, { message: stopMessage(e, job, timedOut, isolate) });
  } finally {
    clearTimeout(backstop);
    dispose(isolate);
  }
}

function failed(
  started: number,
  logs: ConsoleBuffer,
  reads: MissingReads,
  outcome: { message: string; dropped?: number },
): RunOutput {
  return {
    ok: false,
    error: { code: 'execution_error', message: outcome.message },
    logs: logs.lines(outcome.dropped),
    missingFieldReads: reads.list(),
    durationMs: performance.now() - started,
  };
}
