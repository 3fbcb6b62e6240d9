import { parentPort } from 'node:worker_threads';
import { runInIsolate } from '../../src/runtime/sandbox/isolate-run.js';
import type { RunJob } from '../../src/runtime/sandbox/types.js';

// The alternative the sandbox did not take, kept to measure it: the same run in a worker thread
// of the calling process instead of a runner process (a V8 catastrophe there would end the
// whole process, which is why the sandbox uses processes).

parentPort!.on('message', (message: { id: number; job: RunJob }) => {
  void runInIsolate(message.job).then((output) => parentPort!.postMessage({ id: message.id, output }));
});
