/**
 * Ends the process with `code` once its event loop is empty. process.exit() can hang for good
 * (nodejs/node#54918): it joins V8's worker threads while the isolate still lives, and a
 * background compile waiting there for a garbage collection waits on the main thread, which is
 * joining it. A natural exit disposes of the isolate first, which releases such a job.
 */
export function exitWhenIdle(code: number, forceAfterMs: number): void {
  process.exitCode = code;
  // for a handle nobody closed; by then the start-up's background compiles are long done
  setTimeout(() => process.exit(code), forceAfterMs).unref();
}
