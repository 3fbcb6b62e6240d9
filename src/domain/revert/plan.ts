import type { Created, Outcome, Status } from '../mutation/events.js';
import { isCreation, type Action, type TargetType } from '../mutation/payloads.js';

// Reverting receipts (docs/decisions/125-revert.md): which of them can be undone, and the change
// that undoes each, restoring the value the receipt recorded it replaced (`prior`, read just
// before it was sent). Pure: the command reads the receipts and each target as it is now, this
// decides, and admission queues the changes like any other request.

/** A receipt to revert, as the read model and its history show it. */
export interface RevertSource {
  id: string;
  target: { type: TargetType; id: string };
  action: Action;
  payload: Record<string, unknown>;
  status: Status;
  outcome: Outcome | null;
  created: Created | null;
  created_at: string;
  /** when its acceptance was recorded (null: not applied) */
  applied_at: string | null;
  /** the part of the target it names, read before its latest send (null: no such target); absent: not read */
  prior?: unknown;
  /** a queued or applied receipt that reverts it already */
  reverted_by: string | null;
}

/** A target as its latest observation in the read models shows it, against the latest change to revert on it. */
export interface ObservedTarget {
  shows: boolean;
  current: unknown;
  observed_at: string;
}

/**
 * What a target shows now against the latest change to revert on it: read live, or, when it could
 * not be (why: `unread`), as its latest observation shows it (null: none holds it).
 */
export type TargetNow = { shows: boolean; current: unknown } | { unread: string; observed: ObservedTarget | null };

/** How a target was checked for changes made since: read live, or from its latest observation. */
export type CheckedBy = 'live_read' | 'observation';

/** What a checked target's items say of the check. */
interface Check {
  checked_by?: CheckedBy;
  /** checked_by observation: when the target was observed */
  observed_at?: string;
}

/** A request that undoes a receipt (admitted like any other; `reverts` becomes its `caused_by`). */
export interface RevertRequest {
  target: { type: TargetType; id: string };
  action: 'update' | 'archive';
  payload: Record<string, unknown>;
  reverts: string;
}

export type RevertItem =
  | ({ receipt_id: string; result: 'revert'; request: RevertRequest; detail: string | null } & Check)
  | ({
      receipt_id: string;
      result: 'not_revertible' | 'already_reverted' | 'conflict' | 'unverified';
      detail: string;
      /** a conflict's: the part of the target the receipt named, as it shows now */
      current?: unknown;
      /** already_reverted's: the receipt that reverts it */
      reverted_by?: string;
    } & Check);

const isApplied = (r: RevertSource) => r.status === 'submitted' && r.outcome === 'accepted';
const targetKey = (t: { type: string; id: string }) => `${t.type}:${t.id}`;
const newestFirst = (a: RevertSource, b: RevertSource) =>
  b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id);

/** The change restoring what `r` replaced, or why there is none. */
export function revertOf(
  r: RevertSource,
): RevertRequest | { result: 'not_revertible' | 'already_reverted'; detail: string; reverted_by?: string } {
  if (!isApplied(r))
    return {
      result: 'not_revertible',
      detail: `it was not applied (status ${r.status}, outcome ${r.outcome ?? 'none yet'}): there is nothing to revert`,
    };
  if (r.action === 'archive')
    return {
      result: 'not_revertible',
      detail: 'an archive is permanent: the marketplace cannot restore an archived entity',
    };
  if (r.reverted_by)
    return {
      result: 'already_reverted',
      detail: `receipt ${r.reverted_by} reverts it already`,
      reverted_by: r.reverted_by,
    };
  if (isCreation(r.action)) {
    if (!r.created)
      return { result: 'not_revertible', detail: 'the marketplace confirmed no entity it created: nothing to archive' };
    return { target: { type: r.created.type, id: r.created.id }, action: 'archive', payload: {}, reverts: r.id };
  }
  if (!('prior' in r) || r.prior === undefined)
    return {
      result: 'not_revertible',
      detail: 'the value it replaced was not recorded (the target could not be read before it was sent)',
    };
  if (r.prior === null || typeof r.prior !== 'object')
    return {
      result: 'not_revertible',
      detail: 'the target did not exist when it was sent: there is no value to restore',
    };
  const prior = r.prior as Record<string, unknown>;
  const payload = r.target.type === 'Listing' ? listingRestore(r.payload, prior) : adsRestore(r.target.type, prior);
  if (!payload)
    return {
      result: 'not_revertible',
      detail: 'the target showed none of the fields it changed: there is no value to restore',
    };
  return { target: r.target, action: 'update', payload, reverts: r.id };
}

/** Each attribute the patches named back to its recorded value (one the listing lacked is deleted). */
function listingRestore(payload: Record<string, unknown>, prior: Record<string, unknown>) {
  const patches = Object.entries(prior).map(([name, value]) =>
    value === null
      ? { op: 'delete', path: `/attributes/${name}`, value: [] }
      : { op: 'replace', path: `/attributes/${name}`, value },
  );
  return patches.length ? { productType: payload.productType, patches } : null;
}

/** Each field the update named back to its recorded value, in the update payload's shape (a target's bid is `{ bid }`). */
function adsRestore(type: TargetType, prior: Record<string, unknown>) {
  const fields = Object.entries(prior)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => (k === 'bid' && type === 'Target' ? [k, { bid: v }] : [k, v]));
  return fields.length ? Object.fromEntries(fields) : null;
}

/**
 * One item per receipt, in the order given. A target's changes are checked together against what
 * it shows now, which must be what the latest of them set: otherwise it changed since, and none of
 * them is reverted (a conflict) unless `overwrite`. Its reverts go newest first, so the target
 * ends at the value the oldest one replaced.
 */
export function planRevert(
  sources: readonly RevertSource[],
  now: ReadonlyMap<string, TargetNow>,
  overwrite: boolean,
): { items: RevertItem[]; requests: RevertRequest[] } {
  const decided = new Map<string, RevertItem>();
  const changes = new Map<string, RevertSource[]>();
  for (const r of sources) {
    const revert = revertOf(r);
    if ('result' in revert) decided.set(r.id, { receipt_id: r.id, ...revert });
    else if (isCreation(r.action))
      decided.set(r.id, { receipt_id: r.id, result: 'revert', request: revert, detail: null });
    else changes.set(targetKey(r.target), [...(changes.get(targetKey(r.target)) ?? []), r]);
  }
  const requests: RevertRequest[] = sources.flatMap((r) => {
    const item = decided.get(r.id);
    return item?.result === 'revert' ? [item.request] : [];
  });
  for (const [key, group] of changes) {
    const check: LeftAlone | Proceed = overwrite
      ? { result: 'revert', detail: 'overwrite: true, so the target was not checked for changes made since' }
      : checkTarget(now.get(key) ?? { unread: 'the target was not read', observed: null }, group);
    for (const r of [...group].sort(newestFirst)) {
      if (check.result !== 'revert') {
        decided.set(r.id, { receipt_id: r.id, ...check });
        continue;
      }
      const request = revertOf(r) as RevertRequest;
      requests.push(request);
      decided.set(r.id, { receipt_id: r.id, request, ...check });
    }
  }
  return { items: sources.map((r) => decided.get(r.id)!), requests };
}

type LeftAlone = Omit<Exclude<RevertItem, { result: 'revert' }>, 'receipt_id'>;
type Proceed = Check & { result: 'revert'; detail: string | null };

const OVERWRITE_HINT = 'nothing was reverted on it (pass overwrite: true to revert regardless)';

/**
 * Whether a target's changes may be reverted, and how that was checked: it must show what the
 * latest of them set, read live or, when it could not be, in an observation made after every one
 * of them was applied (an older one may not show them yet: the read models lag by a sync).
 * Otherwise they are left alone, saying why.
 */
function checkTarget(state: TargetNow, group: readonly RevertSource[]): LeftAlone | Proceed {
  if (!('unread' in state))
    return state.shows
      ? { result: 'revert', detail: null, checked_by: 'live_read' }
      : {
          result: 'conflict',
          detail: `the target changed since: it no longer shows the value its latest change here set; ${OVERWRITE_HINT}`,
          current: state.current,
          checked_by: 'live_read',
        };
  const { observed } = state;
  const applied = group.map((r) => (r.applied_at === null ? Infinity : Date.parse(r.applied_at)));
  if (!observed || !(Date.parse(observed.observed_at) > Math.max(...applied)))
    return {
      result: 'unverified',
      detail: `could not read the target to check it still shows this change (${state.unread}), and ${
        observed
          ? `its latest observation (${observed.observed_at}) was made before the change was applied`
          : 'no observation of it was found'
      }; ${OVERWRITE_HINT}`,
    };
  const how = `its latest observation (${observed.observed_at}, after the change was applied), as the live read failed (${state.unread})`;
  const check = { checked_by: 'observation' as const, observed_at: observed.observed_at };
  return observed.shows
    ? { result: 'revert', detail: `checked against ${how}`, ...check }
    : {
        result: 'conflict',
        detail: `the target changed since: ${how}, no longer shows the value its latest change here set; ${OVERWRITE_HINT}`,
        current: observed.current,
        ...check,
      };
}
