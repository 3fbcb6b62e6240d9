import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createRing } from './ring.js';

// Every API request the simulator received, in order, for tests to compare with what the
// clients were meant to send. Bounded: the latest `limit` requests, in a ring.

export interface LoggedRequest {
  seq: number;
  at: string;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
  /** The injected fault that answered it, if any. */
  fault: string | null;
  /** Status sent; null when no answer went out (timeout, lost reply). */
  status: number | null;
}

export interface RequestLog {
  record(request: FastifyRequest): LoggedRequest;
  entryOf(request: FastifyRequest): LoggedRequest | undefined;
  list(): LoggedRequest[];
  clear(): void;
}

export function createRequestLog(limit: number): RequestLog {
  const entries = createRing<LoggedRequest>(limit);
  let seq = 0;
  const byRequest = new WeakMap<FastifyRequest, LoggedRequest>();
  return {
    record(request) {
      const url = new URL(request.url, 'http://simulator');
      const entry: LoggedRequest = {
        seq: ++seq,
        at: new Date().toISOString(),
        method: request.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: { ...request.headers },
        fault: null,
        status: null,
      };
      entries.push(entry);
      byRequest.set(request, entry);
      return entry;
    },
    entryOf: (request) => byRequest.get(request),
    list: () => entries.list(),
    clear: () => entries.clear(),
  };
}

/** Records every request outside `/_sim`, and serves the log at `/_sim/requests`. */
export function registerRequestLog(app: FastifyInstance, log: RequestLog): void {
  const isControl = (request: FastifyRequest) => request.url.startsWith('/_sim/');
  app.addHook('onRequest', async (request) => {
    if (!isControl(request)) log.record(request);
  });
  app.addHook('preHandler', async (request) => {
    const entry = log.entryOf(request);
    if (entry && request.body !== undefined) entry.body = request.body;
  });
  app.addHook('onResponse', async (request, reply) => {
    const entry = log.entryOf(request);
    if (entry && entry.fault !== 'lost_reply') entry.status = reply.statusCode;
  });
  app.get<{ Querystring: { method?: string; path?: string } }>('/_sim/requests', async (request) => {
    const { method, path } = request.query;
    return {
      requests: log.list().filter((e) => (!method || e.method === method.toUpperCase()) && (!path || e.path === path)),
    };
  });
  app.delete('/_sim/requests', async (_request, reply) => {
    log.clear();
    return reply.code(204).send();
  });
}
