import type { RunJob, RunOutput } from './types.js';

// Messages between the pool (pool.ts) and a runner process (runner.ts), over Node's IPC channel
// with the structured-clone serialization.

export type ToRunner = { type: 'run'; id: number; job: RunJob };
export type FromRunner = { type: 'ready' } | { type: 'done'; id: number; output: RunOutput };

/** What a runner writes to stderr just before it ends itself after a V8 catastrophe. */
export const CATASTROPHE_MARK = 'sandbox-runner catastrophic error: ';
