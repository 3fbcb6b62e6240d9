import { RUN_LIMITS } from '../contracts/limits.js';
import { describeThrown } from './messages.js';
import { bytes, count } from './text.js';
import type { StoreEffect, StoreLimits, WebhookPost } from './types.js';

// The host's reading of what the isolate copied out. The isolate is not trusted: every string
// is parsed here and checked against the run limits of spec 4.12 and 8 (the outbox's meaning,
// its targets and actions, is checked by admission, not here), and against the store's limits
// when its owner set them.

export type CopiedOut =
  | { ok: true; mutations: unknown[]; webhookPosts: WebhookPost[]; storeEffects: StoreEffect[]; dropped: number }
  | { ok: false; message: string; dropped: number };

export interface CopyOutRules {
  webhooks: readonly string[];
  storeJson: string;
  storeLimits?: StoreLimits;
}

class Refused extends Error {}

const parseJson = (json: unknown, what: string): unknown => {
  if (typeof json !== 'string') throw new Refused(`${what} was not copied out`);
  try {
    return JSON.parse(json);
  } catch {
    throw new Refused(`${what} was not copied out as JSON`);
  }
};

function checkMutations(json: string): unknown[] {
  const mutations = parseJson(json, 'context.mutations');
  if (!Array.isArray(mutations)) throw new Refused('context.mutations was not copied out as an array');
  if (mutations.length > RUN_LIMITS.mutationsPerRun)
    throw new Refused(
      `context.mutations holds ${count(mutations.length)} requests; a run may queue at most ${RUN_LIMITS.mutationsPerRun}`,
    );
  let payloadBytes = 0;
  for (const m of mutations)
    if (m !== null && typeof m === 'object' && Object.hasOwn(m, 'payload'))
      payloadBytes += bytes(JSON.stringify((m as { payload: unknown }).payload) ?? '');
  if (payloadBytes > RUN_LIMITS.mutationPayloadBytesPerRun)
    throw new Refused(
      `the payloads in context.mutations add up to ${count(payloadBytes)} bytes; a run may queue at most ${count(RUN_LIMITS.mutationPayloadBytesPerRun)} bytes of payloads`,
    );
  return mutations;
}

function checkPosts(json: string, webhooks: readonly string[]): { posts: WebhookPost[]; bytes: number } {
  const list = parseJson(json, 'the webhook posts');
  if (!Array.isArray(list)) throw new Refused('the webhook posts were not copied out as a list');
  const posts: WebhookPost[] = [];
  let size = 0;
  for (const item of list) {
    const [webhook, payload] = Array.isArray(item) ? (item as unknown[]) : [];
    if (typeof webhook !== 'string' || !webhooks.includes(webhook) || typeof payload !== 'string')
      throw new Refused('a webhook post was not copied out as a known webhook and its JSON');
    size += bytes(payload);
    posts.push({ webhook, payload: parseJson(payload, `the payload posted to ${webhook}`) });
  }
  return { posts, bytes: size };
}

function checkStore(json: string, rules: CopyOutRules): StoreEffect[] {
  const list = parseJson(json, 'the store effects');
  if (!Array.isArray(list)) throw new Refused('the store effects were not copied out as a list');
  const effects: StoreEffect[] = [];
  for (const item of list) {
    const [key, value] = Array.isArray(item) ? (item as unknown[]) : [];
    if (typeof key !== 'string' || (value !== null && typeof value !== 'string'))
      throw new Refused('a store effect was not copied out as a key and its JSON');
    effects.push(
      value === null
        ? { op: 'delete', key }
        : { op: 'set', key, value: parseJson(value, `context.store value ${key}`) },
    );
  }
  if (rules.storeLimits) checkStoreLimits(effects, rules.storeJson, rules.storeLimits);
  return effects;
}

/** Per value, and for every key and value the automation holds once the effects are applied. */
function checkStoreLimits(effects: StoreEffect[], storeJson: string, limits: StoreLimits): void {
  const held = new Map<string, number>();
  for (const [key, value] of Object.entries(JSON.parse(storeJson) as Record<string, unknown>))
    held.set(key, bytes(key) + bytes(JSON.stringify(value) ?? ''));
  for (const effect of effects) {
    if (effect.op === 'delete') {
      held.delete(effect.key);
      continue;
    }
    const size = bytes(JSON.stringify(effect.value));
    if (size > limits.valueBytes)
      throw new Refused(
        `context.store.set(${JSON.stringify(effect.key)}): the value is ${count(size)} bytes; the limit is ${count(limits.valueBytes)} bytes per value`,
      );
    held.set(effect.key, bytes(effect.key) + size);
  }
  const total = [...held.values()].reduce((a, b) => a + b, 0);
  if (total > limits.totalBytes)
    throw new Refused(
      `context.store would hold ${count(total)} bytes after this run; the limit is ${count(limits.totalBytes)} bytes per automation`,
    );
}

export function copyOut(result: unknown, rules: CopyOutRules): CopiedOut {
  // the shape of EntryResult, read as unknown: the isolate may have sent anything
  const r = (result !== null && typeof result === 'object' ? result : {}) as Record<string, unknown>;
  const dropped = typeof r.dropped === 'number' && r.dropped > 0 ? r.dropped : 0;
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  if (r.kind === 'threw')
    return { ok: false, message: describeThrown(str(r.name), str(r.message), str(r.stack)), dropped };
  if (r.kind === 'invalid') return { ok: false, message: str(r.message) ?? 'the run produced invalid output', dropped };
  if (r.kind !== 'ok') return { ok: false, message: 'the run ended without a result', dropped };
  try {
    const mutations = checkMutations(r.mutations as string);
    const posts = checkPosts(r.posts as string, rules.webhooks);
    const output = bytes(r.mutations as string) + posts.bytes;
    if (output > RUN_LIMITS.outputBytesPerRun)
      throw new Refused(
        `the run's output (context.mutations and webhook posts) is ${count(output)} bytes; the limit is ${count(RUN_LIMITS.outputBytesPerRun)} bytes per run`,
      );
    const storeEffects = checkStore(r.store as string, rules);
    return { ok: true, mutations, webhookPosts: posts.posts, storeEffects, dropped };
  } catch (e) {
    if (e instanceof Refused) return { ok: false, message: e.message, dropped };
    throw e;
  }
}
