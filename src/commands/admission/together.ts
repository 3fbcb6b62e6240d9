import { admitMutations, announce, decidedOptimistically, type AdmissionCall, type AdmissionDeps } from './admit.js';
import { creations } from './idempotency.js';
import { lookupsTogether } from './lookups.js';
import type { AdmissionOutcome } from './receipts.js';
import { createStreams, type Creation } from '../shared/handler.js';

// Several calls admitted at once (the live reactor's batch of runs, docs/decisions/147): each call
// is decided on its own, exactly as admitMutations decides it (its key, its targets' block flags
// and switches, its own requests), and what the calls that need no lock record (each key's use,
// then its receipts) is created in ONE exclusive write, where each call would have written its
// own. Each creation keeps its own call's metadata (actor, correlation, causation).
// A call that needs locks (a creation, a qualified action), one refused while deciding, or every
// call when the joint write finds a stream there already (a key in use: a batch run again after a
// crash) goes through admitMutations alone, which replays a key's answer or admits afresh: what
// each call is answered is what it would have been answered alone.

export interface TogetherCall {
  deps: AdmissionDeps;
  call: AdmissionCall;
}

export async function admitTogether(calls: readonly TogetherCall[]): Promise<AdmissionOutcome[]> {
  if (calls.length === 0) return [];
  // the calls' lookups side by side: the switch read once, their listings resolved in one statement
  const lookups = lookupsTogether(calls[0]!.deps.db);
  const plans = calls.map(({ deps, call }) => decidedOptimistically(deps, call, lookups));
  // a refusal (admissions paused, say) is admitMutations' to give, alone
  const decided = await Promise.all(plans.map((p) => p?.deciding.catch(() => null) ?? null));
  const outcomes: Array<AdmissionOutcome | null> = calls.map(() => null);
  const joint = calls.flatMap((_, i) => (plans[i] && decided[i] ? [i] : []));
  if (joint.length > 0) {
    const all: Creation[] = joint.flatMap((i) => {
      const { ctx, idempotency, at } = plans[i]!;
      // the call's own metadata on each of its creations (a receipt's own account over it)
      return creations(idempotency, decided[i]!, at).map((c) => ({
        ...c,
        metadata: { ...ctx.metadata, ...c.metadata },
      }));
    });
    const created = await createStreams(plans[joint[0]!]!.ctx, all, { exclusive: true });
    if (!created.includes(null)) {
      for (const i of joint) outcomes[i] = decided[i]!.outcome;
      // one hand-over to the dispatch workers for the write's receipts
      const results = joint.flatMap((i) => decided[i]!.outcome.results);
      await announce(calls[joint[0]!]!.deps, { results, replayed: false, idempotency: null });
    }
  }
  // one after another: a call's locks and reads are those it would take alone
  for (const [i, { deps, call }] of calls.entries()) outcomes[i] ??= await admitMutations(deps, call);
  return outcomes as AdmissionOutcome[];
}
