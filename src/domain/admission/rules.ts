import { createHash } from 'node:crypto';
import { DomainError } from '../shared/errors.js';
import type { AdmissionEvent, IdempotencyKeyUsed } from './events.js';

/** How long an idempotency key answers with its first call's results (spec 4.8 `idempotency.expires_at`). */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;

/** JSON with object keys sorted at every level: equal inputs give equal text whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
export const fingerprint = (value: unknown): string => sha256(canonicalJson(value));

/** Stream ids (after `<aggregate>-`) of the admission guards. */
export const idempotencyStreamId = (namespace: string, key: string): string => sha256(`${namespace}\u0000${key}`);
export const creationStreamId = (
  account_id: string,
  target: { type: string; id: string },
  action: string,
  payload: unknown,
): string =>
  sha256(`${account_id}\u0000${target.type}\u0000${target.id}\u0000${action}\u0000${canonicalJson(payload)}`);

/**
 * What a call with an idempotency key does, given the key's latest use: admit afresh (never
 * used, or its answer expired), replay the recorded answer (same input), or refuse (different input).
 */
export function idempotencyVerdict(
  latest: IdempotencyKeyUsed | null,
  fingerprintOfCall: string,
  now: Date,
): 'admit' | 'replay' {
  if (!latest || Date.parse(latest.expires_at) <= now.getTime()) return 'admit';
  if (latest.fingerprint === fingerprintOfCall) return 'replay';
  throw new DomainError(
    'idempotency_conflict',
    `idempotency_key '${latest.key}' was used at least once with a different input (until ${latest.expires_at}); nothing was queued. Use a new key for a new request`,
    {
      argument: 'idempotency_key',
      expires_at: latest.expires_at,
    },
  );
}

/** Whether new admissions are paused: the switch's latest event. */
export const admissionsDisabled = (events: readonly AdmissionEvent[]): boolean =>
  events.reduce(
    (off, e) => (e.type === 'AdmissionsDisabled' ? true : e.type === 'AdmissionsEnabled' ? false : off),
    false,
  );

/** The operator's switch: disabling when disabled (or enabling when enabled) records nothing. */
export function decideSwitch(
  command:
    { type: 'disable'; reason: string | null; by: string; at: string } | { type: 'enable'; by: string; at: string },
  disabled: boolean,
): AdmissionEvent[] {
  if (command.type === 'disable')
    return disabled
      ? []
      : [{ type: 'AdmissionsDisabled', data: { reason: command.reason, by: command.by, at: command.at } }];
  return disabled ? [{ type: 'AdmissionsEnabled', data: { by: command.by, at: command.at } }] : [];
}

/** spec 4.5: PRODUCT when every patch is an offer patch, else the listing's known type, else PRODUCT. */
export function defaultProductType(patches: readonly { path: string }[], known: string | null): string {
  if (patches.length > 0 && patches.every((p) => p.path === '/attributes/purchasable_offer')) return 'PRODUCT';
  return known ?? 'PRODUCT';
}

/** A qualified catalog operation key (`<provider>:<family>:<version>:<operationId>`), as opposed to one of the six actions. */
export const isQualifiedAction = (action: string): boolean => action.split(':').length === 4;

/**
 * A listing patch value naming another marketplace than the listing's (spec 4.5 selectors are
 * derived from the target): its path in the payload, or null when every named one agrees.
 */
export function foreignMarketplaceSelector(
  payload: { patches?: unknown },
  marketplaceId: string,
): { path: string; given: string } | null {
  const patches = Array.isArray(payload.patches) ? (payload.patches as { value?: unknown }[]) : [];
  for (const [i, patch] of patches.entries()) {
    const values = Array.isArray(patch?.value) ? (patch.value as Record<string, unknown>[]) : [];
    for (const [j, value] of values.entries()) {
      const given = value?.marketplace_id;
      if (typeof given === 'string' && given !== marketplaceId)
        return { path: `payload.patches.${i}.value.${j}.marketplace_id`, given };
    }
  }
  return null;
}
