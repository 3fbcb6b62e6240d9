import { z } from 'zod';
import type { AdmissionDeps } from '../commands/admission/admit.js';
import { DomainError } from '../domain/shared/errors.js';
import type { EventStore } from '../eventstore/port.js';
import type { ToolContext } from './tool.js';

// The write tools' side of admission: on the demo endpoint (spec 1.4) writes are validated and
// simulated (no store: nothing is recorded, nothing is sent); elsewhere they go to the event store,
// and the receipts admitted queued to the dispatch queue.

/** The store a write records in; a server configured without one answers every write `unavailable`. */
export function recordingStore(ctx: ToolContext): EventStore {
  if (!ctx.store)
    throw new DomainError('unavailable', 'this server records no writes (no event store is configured); retry later');
  return ctx.store;
}

export function admissionDeps(ctx: ToolContext): AdmissionDeps {
  if (ctx.endpoint === 'demo') return { db: ctx.db, store: null, now: ctx.now(), logger: ctx.logger };
  return {
    db: ctx.db,
    store: recordingStore(ctx),
    now: ctx.now(),
    logger: ctx.logger,
    ...(ctx.dispatch ? { notifier: ctx.dispatch } : {}),
  };
}

/** Marks a demo answer: what would have happened, recorded nowhere. */
export const simulation = (ctx: ToolContext): { simulated: true } | Record<string, never> =>
  ctx.endpoint === 'demo' ? { simulated: true } : {};

/** `simulation`'s mark in a write tool's output schema: spread it into the answer's shape. */
export const simulatedOutput = {
  simulated: z
    .literal(true)
    .optional()
    .describe('true on the demo endpoint: validated and simulated, nothing recorded or sent; absent elsewhere'),
};

/** A write tool's idempotency key argument (spec 4.8). */
export const idempotencyKeyArgument = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .optional()
  .describe(
    'your key for this request; the same key with the same input returns the first answer, with different input idempotency_conflict',
  );

/** A write tool's answer: the key and until when it answers retries. */
export const idempotencyOutput = {
  replayed: z
    .boolean()
    .describe("true when idempotency_key answered a retry: the first call's receipts, with current statuses"),
  idempotency: z
    .object({
      key: z.string(),
      expires_at: z.string().describe('ISO 8601; a retry after it is not safe'),
    })
    .nullable()
    .describe('the idempotency key and until when it answers retries; null without idempotency_key'),
};
