import type { Logger } from '../../infra/logger.js';

// Admission tells the dispatch workers about the receipts it admitted queued, so a request goes
// out at once (spec 4.5: "queued immediately for a worker") rather than at the workers' next
// sweep. Best effort: the receipts are already durable and the sweep finds any that a lost notice
// missed, so a slow or unreachable queue never fails a call nor holds it up for long.

export interface DispatchNotifier {
  /** hands the receipts to the dispatch queue, one job each (a job already there is not added again) */
  queued(receiptIds: readonly string[]): Promise<void>;
}

/** How long a call waits for the queue before leaving its receipts to the sweep. */
export const NOTICE_TIMEOUT_MS = 1000;

/** Never throws and returns within `timeoutMs`; a failure is a warning. */
export async function notifyQueued(
  notifier: DispatchNotifier,
  receiptIds: readonly string[],
  logger: Pick<Logger, 'warn'>,
  timeoutMs = NOTICE_TIMEOUT_MS,
): Promise<void> {
  if (receiptIds.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the dispatch queue did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  const sending = Promise.resolve().then(() => notifier.queued(receiptIds));
  // past the timeout its outcome no longer matters: the warning is out, the sweep will do
  sending.catch(() => undefined);
  try {
    await Promise.race([sending, timeout]);
  } catch (err) {
    logger.warn(
      { receipt_ids: receiptIds, err: (err as Error).message },
      'could not enqueue dispatch; the sweep will pick the receipts up',
    );
  } finally {
    clearTimeout(timer);
  }
}
