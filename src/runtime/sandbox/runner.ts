import { writeSync } from 'node:fs';
import { RUN_LIMITS } from '../contracts/limits.js';
import { freshIsolate, runInIsolate } from './isolate-run.js';
import { CATASTROPHE_MARK, type FromRunner, type ToRunner } from './protocol.js';
import type { RunOutput } from './types.js';

// A runner process: started by the pool (pool.ts) with --no-node-snapshot and an empty
// environment, it runs one isolate at a time for its parent. After a V8 catastrophe (isolated-vm's
// onCatastrophicError: the isolate is beyond recovery, e.g. an allocation V8 could not survive)
// it says why on stderr and ends at once with SIGKILL; the pool answers that run with
// execution_error and starts another runner. The process serving MCP never hosts an isolate.

const send = (message: FromRunner) => process.send!(message);

function catastrophe(message: string): void {
  writeSync(2, `${CATASTROPHE_MARK}${message.replace(/\s+/g, ' ')}\n`);
  process.kill(process.pid, 'SIGKILL');
}

// The next run's isolate, made while the runner waits, so creating it is not on a run's path.
// A failure to make one is left to the run, which then makes its own (and reports what failed).
const prepare = () => freshIsolate(RUN_LIMITS.memoryMb, catastrophe).catch(() => undefined);
let next = prepare();

process.on('message', (message: ToRunner) => {
  if (message?.type !== 'run') return;
  const { id, job } = message;
  void runInIsolate(job, catastrophe, next, performance.now())
    .catch((e: unknown): RunOutput => ({
      ok: false,
      error: { code: 'execution_error', message: `the runner failed: ${e instanceof Error ? e.message : String(e)}` },
      logs: [],
      missingFieldReads: [],
      durationMs: 0,
    }))
    .then((output) => {
      send({ type: 'done', id, output });
      next = prepare();
    });
});
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
