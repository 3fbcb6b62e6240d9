import type { DefaultJobOptions } from 'bullmq';
import type { Logger } from 'pino';

// What queues whose work a sweep re-enqueues from the read models share.

/**
 * Five tries with exponential backoff from 1 s for a job's own failures; a finished job is
 * removed (a failure is logged), so the sweep can add a job of the same id again.
 */
export const SWEPT_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: true,
};

/**
 * Runs `sweep` now and every `everyMs`; a tick that finds the last sweep still running skips,
 * so sweeps never queue up behind each other. A failed sweep is logged as `failure`.
 */
export function startSweeps(
  sweep: () => Promise<unknown>,
  everyMs: number,
  logger: Pick<Logger, 'error'>,
  failure: string,
): { stop(): Promise<void> } {
  let sweeping: Promise<unknown> | null = null;
  const tick = () => {
    sweeping ??= sweep()
      .catch((err: unknown) => logger.error({ err }, failure))
      .finally(() => (sweeping = null));
  };
  tick();
  const timer = setInterval(tick, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await sweeping;
    },
  };
}
