import type { MutationRequest } from '../../commands/admission/target.js';
import { obj } from '../../domain/shared/json.js';
import { RUN_LIMITS } from '../contracts/limits.js';

// What a handler pushed onto `context.mutations`, read as raw JSON (the sandbox copies it out as
// data): the run's limits over the whole outbox, then each push's shape, before any of it reaches
// admission (spec 4.12, 8). Pure: no reads.

const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

/**
 * A push as it is admitted: a target object the context gave counts as its type and id only, so
 * handing `context.listing` itself as the target (as spec 4.12 asks) costs nothing extra.
 */
function asAdmitted(raw: unknown): unknown {
  const push = obj(raw);
  if (!push) return raw;
  const target = obj(push.target);
  return { ...push, target: target ? { type: target.type, id: target.id } : push.target };
}

/** Why the outbox as a whole is invalid output (over a per-run limit, or not a list), or null. */
export function outboxOverLimit(pushed: unknown): string | null {
  if (!Array.isArray(pushed)) return 'context.mutations is not an array';
  if (pushed.length > RUN_LIMITS.mutationsPerRun)
    return `${pushed.length} mutation requests in one run; at most ${RUN_LIMITS.mutationsPerRun}`;
  const payloads = pushed.reduce<number>((sum, p) => sum + bytes(obj(p)?.payload ?? null), 0);
  if (payloads > RUN_LIMITS.mutationPayloadBytesPerRun)
    return `the payloads serialize to ${payloads} bytes; at most ${RUN_LIMITS.mutationPayloadBytesPerRun} per run`;
  const output = bytes(pushed.map(asAdmitted));
  if (output > RUN_LIMITS.outputBytesPerRun)
    return `the output serializes to ${output} bytes; at most ${RUN_LIMITS.outputBytesPerRun} per run`;
  return null;
}

/** One push: a request for admission, invalid output (with why), or a target that is dropped without a record. */
export type ReadPush =
  | { request: MutationRequest }
  | { invalid: string; target: { type: string; id: string | null } | null; action: string | null }
  | { dropped: string; target: { type: string; id: string | null } };

/** The first push's shape problem, in the handler's terms. */
export function readPush(raw: unknown, index: number): ReadPush {
  const at = `context.mutations[${index}]`;
  const push = obj(raw);
  if (!push) return { invalid: `${at} is not an object { target, action, payload }`, target: null, action: null };
  const target = obj(push.target);
  const type = typeof target?.type === 'string' ? target.type : null;
  const id = target?.id;
  const action = typeof push.action === 'string' ? push.action : null;
  if (!target || type === null)
    return {
      invalid: `${at}.target must be the object the context gave (with its type and id)`,
      target: null,
      action,
    };
  // a campaign the ads sync has not seen yet has no local id (spec 3.3): dropped, not an error
  if (type === 'Campaign' && (id === null || id === undefined))
    return { dropped: 'campaign not synced yet (its id is null)', target: { type, id: null } };
  if (typeof id !== 'string' || id === '')
    return {
      invalid: `${at}.target.id must be the local id string the context gave`,
      target: { type, id: null },
      action,
    };
  if (action === null) return { invalid: `${at}.action must be a string`, target: { type, id }, action };
  const payload = obj(push.payload);
  if (!payload)
    return {
      invalid: `${at}.payload must be an object (an empty one for archive)`,
      target: { type, id },
      action,
    };
  return { request: { target: { type, id }, action, payload } };
}

const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * The amount a request sets, as the automation actions show it (spec 2.10, `value`): a listing's
 * price, a budget or a bid. Payloads state money in major units already (offer patches and the
 * ads API alike), so it is taken as written. Null when the request sets no amount.
 */
export function valueOf(request: Pick<MutationRequest, 'payload'>): number | null {
  const p = request.payload;
  const patches = Array.isArray(p.patches) ? p.patches : [];
  for (const patch of patches) {
    if (obj(patch)?.path !== '/attributes/purchasable_offer') continue;
    for (const offer of Array.isArray(obj(patch)!.value) ? (obj(patch)!.value as unknown[]) : []) {
      const schedule = obj((obj(offer)?.our_price as unknown[] | undefined)?.[0])?.schedule as unknown[] | undefined;
      const amount = finite(obj(schedule?.[0])?.value_with_tax);
      if (amount !== null) return amount;
    }
  }
  return finite(obj(p.budget)?.budget) ?? finite(p.defaultBid) ?? finite(obj(p.bid)?.bid);
}
