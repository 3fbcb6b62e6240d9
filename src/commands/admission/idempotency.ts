import type { IdempotencyKeyUsed, RecordedResult } from '../../domain/admission/events.js';
import { idempotencyDecider, idempotencyStreamId, idempotencyVerdict } from '../../domain/admission/idempotency.js';
import type { Idempotency } from '../../domain/mutation/events.js';
import type { AdmissionError, AdmissionOutcome, AdmissionResult, Admit } from './receipts.js';
import { receiptView } from './receipts.js';
import { mutationDecider } from '../../domain/mutation/decide.js';
import {
  aggregateStream,
  createStreams,
  decideCreation,
  handleCommand,
  noStream,
  streamName,
  type CommandContext,
  type Creation,
} from '../shared/handler.js';
import { executeMutationCommand, readReceipt } from '../mutation/execute.js';

// An idempotency key answers every retry the same (spec 4.8): a call's answer is recorded under
// its key before its receipts are admitted, so a retry after a crash replays the answer and
// completes the admissions it names. Under the key's lock (`keyLocks`, admitIdempotently), or,
// for a new key and a call that asks for no creation, without it (admitOptimistically).

/** What a call admitted: its answer, the answer as the key records it, and the receipts to admit. */
export interface Admission {
  outcome: AdmissionOutcome;
  recorded: RecordedResult[];
  admissions: Admit[];
}

const keyId = ({ namespace, key }: Idempotency): string => idempotencyStreamId(namespace, key);

/** The lock a call with this key holds while it is admitted. */
export const keyLocks = (idempotency: Idempotency | null): string[] =>
  idempotency ? [streamName(idempotencyDecider.aggregate, keyId(idempotency))] : [];

/** The command recording the call's answer under its key. */
const keyUse = (idempotency: Idempotency, { recorded, admissions }: Admission, at: string) => ({
  type: 'RecordKeyUse' as const,
  use: { ...idempotency, results: recorded, admissions },
  at,
});

/** The key's use (when the call has a key) and the new receipts, in that order: one write creates them. */
export function creations(idempotency: Idempotency | null, admission: Admission, at: string): Creation[] {
  return [
    ...(idempotency
      ? [decideCreation(idempotencyDecider, keyId(idempotency), keyUse(idempotency, admission, at))]
      : []),
    // a receipt's event names its account, as executeMutationCommand's does
    ...admission.admissions.map((command) => ({
      ...decideCreation(mutationDecider, command.receipt_id, command),
      metadata: { account_id: command.account_id },
    })),
  ];
}

/** Replays the key's answer, or admits the call (`admit`), records its answer under the key, then its receipts. */
export async function admitIdempotently({
  ctx,
  idempotency,
  at,
  admit,
}: {
  ctx: CommandContext;
  idempotency: Idempotency | null;
  at: string;
  admit: () => Promise<Admission>;
}): Promise<AdmissionOutcome> {
  // read once: the key's lock keeps it as read until its use is recorded
  const keyed = idempotency && {
    idempotency,
    aggregate: await aggregateStream(ctx.store, idempotencyDecider, keyId(idempotency)),
  };
  if (keyed && idempotencyVerdict(keyed.aggregate.state, keyed.idempotency.fingerprint, at) === 'replay')
    return replay(ctx, keyed.aggregate.state.used!);
  const admission = await admit();
  // A key used for the first time (or none) and the new receipts: created in one write (one
  // commit to wait for, where each append waited for its own), the key first, so a store that
  // writes them one after another (EventStoreDB) still records the answer before the receipts it
  // names, and a target's receipts in their order.
  if (!keyed || keyed.aggregate.revision === null) {
    // exclusive: a writer without the lock (admitOptimistically) may have created the key since it
    // was read; then nothing of this call is written, and the key's answer stands
    const created = await createStreams(ctx, creations(idempotency, admission, at), { exclusive: keyed !== null });
    if (keyed && created[0] === null) {
      const taken = await aggregateStream(ctx.store, idempotencyDecider, keyId(keyed.idempotency));
      // the same input replays; another is idempotency_conflict (thrown by the verdict)
      if (idempotencyVerdict(taken.state, keyed.idempotency.fingerprint, at) === 'replay')
        return replay(ctx, taken.state.used!);
    }
    // receipt ids are new: a stream there already is a bug
    if (created.includes(null)) throw new Error('an admission found a stream it was creating already written');
    return admission.outcome;
  }
  // a key past its expiry, used again
  await handleCommand(
    idempotencyDecider,
    keyId(keyed.idempotency),
    keyUse(keyed.idempotency, admission, at),
    ctx,
    keyed.aggregate,
  );
  // new receipts: their streams are not read first (one that exists fails the append and is read then)
  for (const command of admission.admissions) await executeMutationCommand(ctx, command, noStream(mutationDecider));
  return admission.outcome;
}

/**
 * A call with a new key (or none) that asks for no creation, admitted without a lock: once the
 * call is decided (`deciding`, begun by the caller), the key's use and the receipts are created in
 * one exclusive write, key first, so of two admitters of one key only the first writes anything.
 * The key is not read first: the write finds a key in use (or taken meanwhile, or past its
 * expiry) by failing, and a call admitted once is run again rarely (a live run after a crash), so
 * a read before every first use cost a statement to save a failed write now and then. Null when
 * the key was in use: the caller then admits under the key's lock, which replays the answer
 * recorded (or admits afresh past the key's expiry). Only on a store that creates streams in one
 * atomic write (`atomicCreation`): where the key lands before its receipts, a replay could
 * complete them under a writer still writing them.
 */
export async function admitOptimistically({
  ctx,
  idempotency,
  at,
  deciding,
}: {
  ctx: CommandContext;
  idempotency: Idempotency | null;
  at: string;
  deciding: Promise<Admission>;
}): Promise<AdmissionOutcome | null> {
  // a refusal (admissions paused, say) is the locked path's to give: a key in use replays there instead
  const admission = await deciding.catch(() => null);
  if (!admission) return null;
  const created = await createStreams(ctx, creations(idempotency, admission, at), { exclusive: true });
  if (idempotency && created[0] === null) return null;
  // receipt ids are new: a stream there already is a bug
  if (created.includes(null)) throw new Error('an admission found a stream it was creating already written');
  return admission.outcome;
}

/** The first call's answer again, with each receipt's current status; completes admissions a crash cut short. */
async function replay(ctx: CommandContext, used: IdempotencyKeyUsed): Promise<AdmissionOutcome> {
  const results: AdmissionResult[] = [];
  for (const [index, r] of used.results.entries()) {
    if ('error' in r) {
      // recorded from errorBody: a DomainError's code
      results.push({ index, error: r.error as AdmissionError });
      continue;
    }
    let found = await readReceipt(ctx.store, r.receipt_id);
    if (!found) {
      const command = used.admissions.find((a) => a.receipt_id === r.receipt_id) as Admit;
      await executeMutationCommand(ctx, command, noStream(mutationDecider));
      found = (await readReceipt(ctx.store, r.receipt_id))!;
    }
    results.push({ index, receipt: receiptView(found, false) });
  }
  return { results, replayed: true, idempotency: { key: used.key, expires_at: used.expires_at } };
}
