import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { EVENT_TYPES, type EventType } from './types.js';
import { BATCH_CONTENT_TYPE } from '../../../domain/event/delivery.js';
import { createRing } from '../ring.js';
import type { PushTarget } from './subscriptions.js';

// The sender: POSTs each message to its subscription's URL, signed the Standard Webhooks way
// over the exact body, off the request path (send() only queues). One lane per URL delivers
// in order, one request at a time: a message alone or, when several wait, up to `batchMax` of
// them in one batch (BATCH_CONTENT_TYPE), as a queue hands them over. A 5xx, 429 or network error
// is retried with exponential backoff up to `attempts`, any other status ends the message
// (failed), as does a batch answer refusing it. Redirects are not followed. Delivery faults
// (duplicate, reorder, delay) bend this on purpose for tests:
//   POST /_sim/events/faults { kind, times?, delayMs?, type? }   GET / DELETE the same

export interface Outgoing extends PushTarget {
  /** webhook-id: the provider's message id */
  id: string;
  type: EventType;
  body: string;
}

export interface DeliveryOptions {
  /** Attempts per message, the first included. */
  attempts: number;
  /** Backoff before retry n is retryBaseMs · 2^(n-1), at most retryMaxMs. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Deadline of one attempt. */
  timeoutMs: number;
  /** Messages in one push at most, when several wait for a URL (1: one each). */
  batchMax: number;
}

export const DEFAULT_DELIVERY: DeliveryOptions = {
  attempts: 8,
  retryBaseMs: 500,
  retryMaxMs: 30_000,
  timeoutMs: 5_000,
  batchMax: 10,
};

/** A batch's body at most, so that a receiver's body limit never refuses one. */
const BATCH_BYTES = 256 * 1024;

export interface DeliveryRecord {
  id: string;
  type: EventType;
  url: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  /** The receiver's last answer; null after a network error or before any. */
  lastStatus: number | null;
  lastError?: string;
}

export interface DeliveryStats {
  /** Messages handed to the sender (a duplicated message counts twice). */
  queued: number;
  delivered: number;
  /** Attempts after the first. */
  retried: number;
  failed: number;
  /** Queued and not yet delivered or given up. */
  pending: number;
}

const FAULT_KINDS = ['duplicate', 'reorder', 'delay'] as const;
const faultInput = z.strictObject({
  kind: z.enum(FAULT_KINDS),
  times: z.number().int().positive().default(1),
  /** delay: how long the message waits before its first attempt (default 1 s) */
  delayMs: z.number().int().min(0).max(600_000).optional(),
  /** only messages of this type */
  type: z.enum(EVENT_TYPES as [EventType, ...EventType[]]).optional(),
});
type DeliveryFault = z.output<typeof faultInput> & { remaining: number };

/** A reordered message waits for the next message to its URL, or this long if none comes. */
const REORDER_HOLD_MS = 2_000;
const RECORD_LIMIT = 1_000;
/** Messages waiting per destination at most. */
const LANE_LIMIT = 10_000;

/** The messages a batch's answer refuses (`{ outcomes: [{ id, error, detail }] }`), by id; any other answer refuses none. */
function refusedIn(answer: string): Map<unknown, string> {
  let outcomes: unknown;
  try {
    outcomes = (JSON.parse(answer) as { outcomes?: unknown }).outcomes;
  } catch {
    return new Map();
  }
  const list = Array.isArray(outcomes) ? (outcomes as Array<{ id?: unknown; error?: unknown; detail?: unknown }>) : [];
  return new Map(list.filter((o) => o?.error !== undefined).map((o) => [o.id, String(o.detail ?? o.error)]));
}

export interface Delivery {
  send(message: Outgoing): void;
  /** The live fault rules (the control routes edit this list). */
  readonly faults: DeliveryFault[];
  stats(): DeliveryStats;
  records(): DeliveryRecord[];
  close(): void;
}

interface Job {
  message: Outgoing;
  record: DeliveryRecord;
}
interface Lane {
  queue: Job[];
  busy: boolean;
  held: Job[];
}

export function createDelivery(options: DeliveryOptions): Delivery {
  const faults: DeliveryFault[] = [];
  const lanes = new Map<string, Lane>();
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<AbortController>();
  const stats: DeliveryStats = { queued: 0, delivered: 0, retried: 0, failed: 0, pending: 0 };
  const records = createRing<DeliveryRecord>(RECORD_LIMIT);
  let closed = false;

  const laneOf = (url: string) => {
    let lane = lanes.get(url);
    if (!lane) lanes.set(url, (lane = { queue: [], busy: false, held: [] }));
    return lane;
  };
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };
  const takeFault = (kind: DeliveryFault['kind'], type: EventType) => {
    const fault = faults.find((f) => f.kind === kind && f.remaining > 0 && (!f.type || f.type === type));
    if (fault) fault.remaining -= 1;
    return fault;
  };
  const settle = (job: Job, state: 'delivered' | 'failed') => {
    job.record.state = state;
    stats[state] += 1;
    stats.pending -= 1;
  };

  function enqueue(job: Job): void {
    if (closed) return;
    const lane = laneOf(job.message.url);
    // a destination that can't keep up loses its oldest messages rather than the simulator its memory
    if (lane.queue.length >= LANE_LIMIT) {
      const dropped = lane.queue.shift()!;
      dropped.record.lastError = `dropped: more than ${LANE_LIMIT} messages waiting for ${job.message.url}`;
      settle(dropped, 'failed');
    }
    lane.queue.push(job);
    void pump(lane);
  }

  async function pump(lane: Lane): Promise<void> {
    if (lane.busy || closed) return;
    const jobs = take(lane);
    if (jobs.length === 0) return;
    lane.busy = true;
    try {
      await attempt(jobs);
    } finally {
      lane.busy = false;
      // a held (reordered) message goes after the one that overtook it
      lane.queue.push(...lane.held.splice(0));
      void pump(lane);
    }
  }

  /** The lane's next push: its first message and, within batchMax and BATCH_BYTES, those behind it signed alike. */
  function take(lane: Lane): Job[] {
    const jobs = lane.queue.splice(0, 1);
    let bytes = jobs[0]?.message.body.length ?? 0;
    for (let next = lane.queue[0]; next && jobs.length < options.batchMax; next = lane.queue[0]) {
      bytes += next.message.body.length;
      if (next.message.secret !== jobs[0]!.message.secret || bytes > BATCH_BYTES) break;
      jobs.push(lane.queue.shift()!);
    }
    return jobs;
  }

  /** One push of one message, or of a batch; each message ends delivered, failed or waiting for a retry. */
  async function attempt(jobs: Job[]): Promise<void> {
    const [{ message }] = jobs as [Job, ...Job[]];
    for (const { record } of jobs) {
      record.attempts += 1;
      if (record.attempts > 1) stats.retried += 1;
    }
    const batch = jobs.length > 1;
    const id = batch ? `batch-${randomUUID()}` : message.id;
    const body = batch
      ? `{"messages":[${jobs.map((j) => `{"id":${JSON.stringify(j.message.id)},"body":${j.message.body}}`).join(',')}]}`
      : message.body;
    const controller = new AbortController();
    inFlight.add(controller);
    const timer = setTimeout(() => controller.abort(), options.timeoutMs);
    let retry: Job[] = [];
    const answered = (status: number | null, error?: string) => {
      for (const { record } of jobs) {
        record.lastStatus = status;
        if (error !== undefined) record.lastError = error;
      }
    };
    try {
      const at = new Date();
      const response = await fetch(message.url, {
        method: 'POST',
        redirect: 'manual',
        signal: controller.signal,
        headers: {
          'content-type': batch ? BATCH_CONTENT_TYPE : 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': new Webhook(message.secret).sign(id, at, body),
        },
        body,
      });
      const text = await response.text();
      answered(response.status);
      if (response.ok) {
        const refused = batch ? refusedIn(text) : new Map<unknown, string>();
        for (const job of jobs) {
          const why = refused.get(job.message.id);
          if (why !== undefined) job.record.lastError = why;
          settle(job, why === undefined ? 'delivered' : 'failed');
        }
      } else if (response.status >= 500 || response.status === 429) retry = jobs;
      else for (const job of jobs) settle(job, 'failed');
    } catch (error) {
      answered(null, error instanceof Error ? error.message : String(error));
      retry = jobs;
    } finally {
      clearTimeout(timer);
      inFlight.delete(controller);
    }
    if (closed) return;
    for (const job of retry) {
      if (job.record.attempts >= options.attempts) settle(job, 'failed');
      else
        later(Math.min(options.retryMaxMs, options.retryBaseMs * 2 ** (job.record.attempts - 1)), () => enqueue(job));
    }
  }

  return {
    faults,
    send(message) {
      if (closed) return;
      const copies = takeFault('duplicate', message.type) ? 2 : 1;
      const delay = takeFault('delay', message.type);
      const reorder = takeFault('reorder', message.type);
      for (let i = 0; i < copies; i++) {
        const record: DeliveryRecord = {
          id: message.id,
          type: message.type,
          url: message.url,
          state: 'pending',
          attempts: 0,
          lastStatus: null,
        };
        records.push(record);
        stats.queued += 1;
        stats.pending += 1;
        const job = { message, record };
        if (delay) later(delay.delayMs ?? 1_000, () => enqueue(job));
        else if (reorder) {
          const lane = laneOf(message.url);
          lane.held.push(job);
          later(REORDER_HOLD_MS, () => {
            const at = lane.held.indexOf(job);
            if (at >= 0) enqueue(lane.held.splice(at, 1)[0]!);
          });
        } else enqueue(job);
      }
    },
    stats: () => ({ ...stats }),
    records: () => records.list(),
    close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      for (const controller of inFlight) controller.abort();
    },
  };
}

export function registerDeliveryFaults(app: FastifyInstance, delivery: Delivery): void {
  app.post('/_sim/events/faults', async (request, reply) => {
    const parsed = faultInput.safeParse(request.body);
    if (!parsed.success) return reply.code(400).send({ error: 'invalid_fault', issues: parsed.error.issues });
    const fault = { ...parsed.data, remaining: parsed.data.times };
    delivery.faults.push(fault);
    return reply.code(201).send(fault);
  });
  app.get('/_sim/events/faults', async () => ({ faults: delivery.faults.filter((f) => f.remaining > 0) }));
  app.delete('/_sim/events/faults', async (_request, reply) => {
    delivery.faults.splice(0);
    return reply.code(204).send();
  });
}
