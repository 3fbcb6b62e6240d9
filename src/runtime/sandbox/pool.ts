import { failure, RunnerProcess } from './runner-process.js';
import type { RunJob, RunOutput } from './types.js';

// A fixed number of runner processes, each running one isolate at a time; runs beyond them wait
// in order. A runner that ends is replaced at once if it had been working (so a crash costs only
// its own run); one that never started fails the oldest waiting run instead, so a broken install
// answers errors rather than respawning in a loop.

export interface PoolOptions {
  size: number;
  /** how long past a run's own deadline the pool waits before it kills the runner */
  graceMs: number;
}

type Waiter = { resolve: (runner: RunnerProcess) => void; reject: (e: Error) => void };

export class RunnerPool {
  private readonly all = new Set<RunnerProcess>();
  private readonly idle: RunnerProcess[] = [];
  private readonly waiting: Waiter[] = [];
  private readonly inFlight = new Set<Promise<RunOutput>>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: PoolOptions) {
    for (let i = 0; i < options.size; i++) this.start();
  }

  async run(job: RunJob): Promise<RunOutput> {
    if (this.closed) return failure('the sandbox is closed');
    const queued = performance.now();
    let runner: RunnerProcess;
    try {
      runner = await this.acquire();
    } catch (e) {
      return failure((e as Error).message, performance.now() - queued);
    }
    const run = runner.run(this.nextId++, job, job.deadlineMs + this.options.graceMs);
    this.inFlight.add(run);
    try {
      return await run;
    } finally {
      this.inFlight.delete(run);
      this.release(runner);
    }
  }

  describe(): { pid: number | undefined; busy: boolean }[] {
    return [...this.all].map((r) => ({ pid: r.pid, busy: r.busy }));
  }

  async close(graceMs = 2_000): Promise<void> {
    this.closed = true;
    for (const w of this.waiting.splice(0)) w.reject(new Error('the sandbox is closed'));
    await Promise.allSettled([...this.inFlight]);
    await Promise.all([...this.all].map((r) => r.stop(graceMs)));
  }

  private start(): RunnerProcess {
    const runner = new RunnerProcess((ended, wasReady) => this.ended(ended, wasReady));
    this.all.add(runner);
    runner.ready.then(
      () => this.release(runner),
      () => {},
    );
    return runner;
  }

  private acquire(): Promise<RunnerProcess> {
    const runner = this.idle.pop();
    if (runner) return Promise.resolve(runner);
    if (this.all.size < this.options.size) this.start();
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private release(runner: RunnerProcess): void {
    if (!runner.alive || runner.busy || this.idle.includes(runner)) return;
    if (this.closed) {
      void runner.stop(this.options.graceMs);
      return;
    }
    const next = this.waiting.shift();
    if (next) next.resolve(runner);
    else this.idle.push(runner);
  }

  private ended(runner: RunnerProcess, wasReady: boolean): void {
    this.all.delete(runner);
    const at = this.idle.indexOf(runner);
    if (at >= 0) this.idle.splice(at, 1);
    if (this.closed) return;
    if (!wasReady) {
      runner.ready.catch((e: Error) => this.waiting.shift()?.reject(e));
      if (this.waiting.length <= 1) return;
    }
    this.start();
  }
}
