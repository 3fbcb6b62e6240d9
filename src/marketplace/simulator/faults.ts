import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { failureBody } from './api-errors.js';
import type { RequestLog } from './request-log.js';

// Fault injection: rules posted to /_sim/faults make the next matching requests fail the
// way the real marketplace sometimes does.
//   429         throttled before anything happens (Retry-After when retryAfterSeconds is set)
//   5xx         server error before anything happens (status, default 500)
//   timeout     never answered: the client's own deadline is what ends it
//   lost_reply  handled (any effect applies), then the connection drops before the answer
//   reject      refused as invalid (status, default 400)
//   answer      handled, then answered with `body` (text, sent as is) in place of the real answer
//               (status, default 200): an unparsable answer, or one naming another seller

export const FAULT_KINDS = ['429', '5xx', 'timeout', 'lost_reply', 'reject', 'answer'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

const faultRuleInput = z.strictObject({
  /** "METHOD /path/pattern": `*` for any method; in the path, `*` spans one segment and `**` any rest. */
  route: z.string().regex(/^(\*|[A-Z]+) \/\S*$/, 'expected "METHOD /path", e.g. "GET /sellers/v1/*"'),
  kind: z.enum(FAULT_KINDS),
  times: z.number().int().positive().default(1),
  status: z.number().int().min(200).max(599).optional(),
  retryAfterSeconds: z.number().int().nonnegative().optional(),
  /** `answer`'s body */
  body: z.string().optional(),
});
export type FaultRuleInput = z.input<typeof faultRuleInput>;

export interface FaultRule extends z.output<typeof faultRuleInput> {
  id: string;
  /** Requests this rule still fails. */
  remaining: number;
}

export interface Faults {
  add(input: FaultRuleInput): FaultRule;
  /** Spends one use of the first live rule matching the request. */
  take(method: string, path: string): FaultRule | undefined;
  list(): FaultRule[];
  clear(): void;
}

export function createFaults(): Faults {
  let rules: Array<{ rule: FaultRule; matches: (method: string, path: string) => boolean }> = [];
  return {
    add(input) {
      const parsed = faultRuleInput.parse(input);
      const rule = { id: randomUUID(), ...parsed, remaining: parsed.times };
      rules.push({ rule, matches: routeMatcher(parsed.route) });
      return rule;
    },
    take(method, path) {
      const hit = rules.find((r) => r.rule.remaining > 0 && r.matches(method, path));
      if (!hit) return undefined;
      hit.rule.remaining -= 1;
      rules = rules.filter((r) => r.rule.remaining > 0);
      return hit.rule;
    },
    list: () => rules.map((r) => ({ ...r.rule })),
    clear() {
      rules = [];
    },
  };
}

function routeMatcher(route: string): (method: string, path: string) => boolean {
  const [method, pattern] = route.split(' ') as [string, string];
  const source = pattern
    .split(/(\*\*|\*)/)
    .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  const regex = new RegExp(`^${source}$`);
  return (m, path) => (method === '*' || method === m) && regex.test(path);
}

export function registerFaults(app: FastifyInstance, faults: Faults, log: RequestLog): void {
  const lostReplies = new WeakSet<object>();
  const answers = new WeakMap<object, FaultRule>();

  app.addHook('onRequest', async (request, reply) => {
    const entry = log.entryOf(request);
    if (!entry) return; // control routes are never faulted
    const rule = faults.take(request.method, entry.path);
    if (!rule) return;
    entry.fault = rule.kind;
    const api = request.routeOptions.config.api ?? 'selling';
    switch (rule.kind) {
      case '429':
        if (rule.retryAfterSeconds !== undefined) reply.header('retry-after', String(rule.retryAfterSeconds));
        return reply.code(429).send(failureBody(api, 'throttled', 429));
      case '5xx': {
        const status = rule.status ?? 500;
        return reply.code(status).send(failureBody(api, 'server', status));
      }
      case 'reject': {
        const status = rule.status ?? 400;
        return reply.code(status).send(failureBody(api, 'rejected', status));
      }
      case 'timeout':
        // Take the request away from fastify and never answer.
        reply.hijack();
        return;
      case 'lost_reply':
        lostReplies.add(request);
        return;
      case 'answer':
        answers.set(request, rule);
        return;
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (lostReplies.has(request)) reply.raw.destroy();
    const answer = answers.get(request);
    if (answer) {
      reply.code(answer.status ?? 200).header('content-type', 'application/json');
      return answer.body ?? '';
    }
    return payload;
  });

  app.post('/_sim/faults', async (request, reply) => {
    const parsed = faultRuleInput.safeParse(request.body);
    if (!parsed.success) return reply.code(400).send({ error: 'invalid_fault', issues: parsed.error.issues });
    return reply.code(201).send(faults.add(parsed.data));
  });
  app.get('/_sim/faults', async () => ({ faults: faults.list() }));
  app.delete('/_sim/faults', async (_request, reply) => {
    faults.clear();
    return reply.code(204).send();
  });
}
