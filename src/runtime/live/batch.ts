import { admitTogether, type TogetherCall } from '../../commands/admission/together.js';
import type { AdmissionOutcome } from '../../commands/admission/receipts.js';
import type { Admit } from '../outbox/index.js';

// The live reactor's joint admissions (docs/decisions/152-overlapping-live-waves.md): its runs'
// outboxes are admitted in group commits, one group per account.

interface Waiting {
  entry: TogetherCall;
  settle: (p: Promise<AdmissionOutcome>) => void;
}

/**
 * Group commit of runs' admissions: a run's outbox is admitted at once when no joint write of its
 * group (account) is in flight, else together with every other outbox waiting when that write ends
 * (admitTogether, each answered as it would be alone). No run waits for another to push.
 */
export class GroupAdmissions {
  /** per group with a write in flight, the outboxes waiting for the next */
  private readonly groups = new Map<string, Waiting[]>();

  /** The admission of a run of the group (RunDeps.admit). */
  admitFor(group: string): Admit {
    return (deps, call) =>
      new Promise<AdmissionOutcome>((resolve) => {
        const waiting = { entry: { deps, call }, settle: resolve };
        const next = this.groups.get(group);
        if (next) next.push(waiting);
        else this.write(group, [waiting]);
      });
  }

  private write(group: string, round: Waiting[]): void {
    this.groups.set(group, []);
    const admitted = admitTogether(round.map((w) => w.entry));
    round.forEach((w, i) => w.settle(admitted.then((outcomes) => outcomes[i]!)));
    void admitted
      .catch(() => undefined) // each run's admission rejects with it
      .then(() => {
        const next = this.groups.get(group)!;
        if (next.length > 0) this.write(group, next);
        else this.groups.delete(group);
      });
  }
}
