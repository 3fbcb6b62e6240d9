import { admitTogether, type TogetherCall } from '../../commands/admission/together.js';
import type { AdmissionOutcome } from '../../commands/admission/receipts.js';
import type { Admit } from '../outbox/index.js';

// The live reactor's waves and joint admissions (docs/decisions/152-overlapping-live-waves.md,
// 154-bounded-waves-and-lease-lapses.md): an account's events made free form waves, a bounded number
// in flight; its runs' outboxes are admitted in group commits, one group per account.

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

interface Forming<T> {
  queue: T[];
  /** a wave formed and its reads not yet answered: the events made free meanwhile form the next */
  reading: boolean;
  /** waves whose events are not all finished (or gone to retries) */
  inFlight: number;
}

/**
 * Each group's (account's) waves of the items (events) made free: a wave of up to `size` forms
 * the next turn (what is made free with a lone item joins it) when none of the group is reading
 * and fewer than `cap` are in flight, else once the reading one's reads are answered or a wave is
 * over. So a backlog runs as at most `cap` waves side by side, not a wave per read round-trip.
 */
export class AccountWaves<T> {
  private readonly groups = new Map<string, Forming<T>>();

  constructor(
    private readonly size: number,
    private readonly cap: number,
    /** runs a wave: calls `read` once its reads are answered, resolves once it is over */
    private readonly run: (wave: T[], read: () => void) => Promise<void>,
  ) {}

  add(group: string, item: T): void {
    const g = this.groups.get(group) ?? { queue: [], reading: false, inFlight: 0 };
    this.groups.set(group, g);
    g.queue.push(item);
    this.next(group, g);
  }

  private next(group: string, g: Forming<T>): void {
    if (g.reading || g.inFlight >= this.cap) return;
    if (g.queue.length === 0) {
      if (g.inFlight === 0) this.groups.delete(group);
      return;
    }
    g.reading = true;
    g.inFlight++;
    setImmediate(() => {
      let reading = true;
      const read = () => {
        if (!reading) return;
        reading = false;
        g.reading = false;
        this.next(group, g);
      };
      const over = () => {
        read();
        g.inFlight--;
        this.next(group, g);
      };
      this.run(g.queue.splice(0, this.size), read).then(over, over);
    });
  }
}
