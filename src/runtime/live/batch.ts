import { admitTogether, type TogetherCall } from '../../commands/admission/together.js';
import type { AdmissionOutcome } from '../../commands/admission/receipts.js';
import type { Admit } from '../outbox/index.js';

// The live reactor's batches (docs/decisions/147-batched-live-runs.md): the events an account has
// waiting are taken together, split into waves that keep each lane's order, and each wave's runs
// admit their outboxes together.

/**
 * The batch's events in successive waves, in log order: an event goes one wave after the last
 * earlier event it shares a lane with, so a later event of a lane runs once the earlier one is
 * settled (it sees its receipts and store writes), and events of different lanes run side by side.
 */
export function waves<T>(events: readonly T[], lanesOf: (event: T) => readonly string[]): T[][] {
  const waveOf = new Map<string, number>();
  const out: T[][] = [];
  for (const event of events) {
    const lanes = lanesOf(event);
    const wave = Math.max(-1, ...lanes.map((l) => waveOf.get(l) ?? -1)) + 1;
    for (const l of lanes) waveOf.set(l, wave);
    (out[wave] ??= []).push(event);
  }
  return out;
}

/**
 * One admission for a wave's runs: each run's outbox waits until every run of the wave still
 * running has either pushed its own or finished (left), then all waiting are admitted together
 * (admitTogether), each answered as it would be alone. A run that admits again (an event that
 * reached several listings) joins the next round.
 */
export class AdmissionRounds {
  private waiting: Array<{ entry: TogetherCall; settle: (p: Promise<AdmissionOutcome>) => void }> = [];

  constructor(private members: number) {}

  /** The admission of one member's run (RunDeps.admit). */
  readonly admit: Admit = (deps, call) =>
    new Promise<AdmissionOutcome>((resolve) => {
      this.waiting.push({ entry: { deps, call }, settle: resolve });
      this.trip();
    });

  /** A member that will admit nothing more (its run finished, failed, or had nothing to admit). */
  leave(): void {
    this.members--;
    this.trip();
  }

  private trip(): void {
    if (this.waiting.length === 0 || this.waiting.length < this.members) return;
    const round = this.waiting.splice(0);
    const admitted = admitTogether(round.map((w) => w.entry));
    round.forEach((w, i) => w.settle(admitted.then((outcomes) => outcomes[i]!)));
  }
}
