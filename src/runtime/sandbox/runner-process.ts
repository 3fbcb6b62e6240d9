import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { memoryMessage, timedOutMessage } from './messages.js';
import { CATASTROPHE_MARK, type FromRunner, type ToRunner } from './protocol.js';
import type { RunErrorCode, RunJob, RunOutput } from './types.js';

// The pool's handle on one runner process (runner.ts, built next to this file). A runner runs one
// job at a time. It holds no secrets: it starts with an empty environment, so code that got out of
// an isolate would find no database address or token there. If it dies mid-run (a V8 catastrophe,
// a kill -9, an overrun the runner's own deadline did not stop), the run in flight answers
// execution_error and the pool starts another runner.

const RUNNER = fileURLToPath(new URL('./runner.js', import.meta.url));

export const failure = (message: string, durationMs = 0, code: RunErrorCode = 'execution_error'): RunOutput => ({
  ok: false,
  error: { code, message },
  logs: [],
  missingFieldReads: [],
  durationMs,
});

const ERROR_CODES: ReadonlySet<unknown> = new Set<RunErrorCode>([
  'execution_error',
  'code_too_large',
  'event_too_large',
]);
const isList = Array.isArray;

/** The shape callers rely on: a runner is our code, but one taken over must not crash its parent. */
function isRunOutput(o: unknown): o is RunOutput {
  const r = o as Record<string, unknown> | null;
  if (!r || typeof r !== 'object' || !isList(r.logs) || !isList(r.missingFieldReads)) return false;
  if (typeof r.durationMs !== 'number') return false;
  if (r.ok === true) return isList(r.mutations) && isList(r.webhookPosts) && isList(r.storeEffects);
  const error = r.error as Record<string, unknown> | null;
  return r.ok === false && !!error && ERROR_CODES.has(error.code) && typeof error.message === 'string';
}

interface InFlight {
  id: number;
  job: RunJob;
  started: number;
  timer: NodeJS.Timeout;
  resolve: (output: RunOutput) => void;
}

export class RunnerProcess {
  readonly ready: Promise<void>;
  private readonly gone: Promise<void>;
  private readonly child: ChildProcess;
  private stderr = '';
  private current: InFlight | undefined;
  private overran = false;
  private ended = false;
  private wasReady = false;

  /** `onEnd(runner, wasReady)` once the process is gone, whatever ended it. */
  constructor(onEnd: (runner: RunnerProcess, wasReady: boolean) => void) {
    this.child = fork(RUNNER, [], {
      execArgv: ['--no-node-snapshot'],
      env: {},
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.child.stderr?.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-4096)));
    let started: () => void = () => {};
    let failed: (e: Error) => void = () => {};
    this.ready = new Promise<void>((resolve, reject) => ((started = resolve), (failed = reject)));
    this.ready.catch(() => {}); // a runner that never starts is reported through onEnd
    this.child.on('message', (message: FromRunner | null) => {
      if (message?.type === 'ready') {
        this.wasReady = true;
        started();
      } else if (message?.type === 'done' && message.id === this.current?.id) {
        if (isRunOutput(message.output)) return this.finish(message.output);
        this.finish(failure('the sandbox runner answered something that is not a run result; it was replaced'));
        this.child.kill('SIGKILL');
      }
    });
    let gone: () => void = () => {};
    this.gone = new Promise<void>((resolve) => (gone = resolve));
    const end = (code: number | null, signal: NodeJS.Signals | null) => {
      if (this.ended) return;
      this.ended = true;
      const how = signal ?? `exit code ${code}`;
      failed(new Error(`a sandbox runner could not start (${how}): ${this.stderr.trim().slice(-500)}`));
      if (this.current) this.finish(failure(this.deathMessage(how), performance.now() - this.current.started));
      onEnd(this, this.wasReady);
      gone();
    };
    // 'close' does not always follow a forked child's exit here, so: exit, then what stderr still held
    this.child.on('exit', (code, signal) => {
      const stderr = this.child.stderr;
      if (!stderr || stderr.readableEnded || stderr.destroyed) return end(code, signal);
      const timer = setTimeout(() => end(code, signal), 200);
      stderr.once('close', () => (clearTimeout(timer), end(code, signal)));
    });
    this.child.on('error', () => {
      if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
      if (this.child.pid === undefined) end(null, null);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get busy(): boolean {
    return this.current !== undefined;
  }

  get alive(): boolean {
    return !this.ended;
  }

  /** Runs `job`; past `limitMs` the process is killed, which answers the run as timed out. */
  run(id: number, job: RunJob, limitMs: number): Promise<RunOutput> {
    if (this.ended) return Promise.resolve(failure('the sandbox runner had ended before the run started'));
    return new Promise<RunOutput>((resolve) => {
      const timer = setTimeout(() => {
        this.overran = true;
        this.child.kill('SIGKILL');
      }, limitMs);
      this.current = { id, job, started: performance.now(), timer, resolve };
      try {
        this.child.send({ type: 'run', id, job } satisfies ToRunner);
      } catch {
        this.child.kill('SIGKILL'); // its channel is gone: the close handler answers the run
      }
    });
  }

  /** Closes the channel (the runner exits by itself), and kills it if it has not within `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    if (this.ended) return;
    if (this.child.connected) this.child.disconnect();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.gone;
    clearTimeout(timer);
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  private finish(output: RunOutput): void {
    const current = this.current;
    if (!current) return;
    clearTimeout(current.timer);
    this.current = undefined;
    current.resolve(output);
  }

  private deathMessage(how: string): string {
    const job = this.current!.job;
    if (this.overran) return timedOutMessage(job.deadlineMs);
    const mark = this.stderr.lastIndexOf(CATASTROPHE_MARK);
    if (mark >= 0) {
      const why = this.stderr.slice(mark + CATASTROPHE_MARK.length).split('\n')[0]!;
      if (/memory/i.test(why)) return memoryMessage(job.memoryMb);
      return `the isolate failed beyond recovery (${why}); its runner process was replaced`;
    }
    return `the sandbox runner process ended during the run (${how}); it was replaced and nothing of this run was kept`;
  }
}
