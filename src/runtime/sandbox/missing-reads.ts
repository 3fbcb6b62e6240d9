import { RUN_LIMITS } from '../contracts/limits.js';
import type { MissingFieldRead } from './types.js';

// Keys `handle` read from `event` that the payload lacked (spec 4.11.3), as the isolate's Proxy
// reports them: each path once, at most RUN_LIMITS.missingFieldReads of them.

export class MissingReads {
  private readonly reads = new Map<string, string[]>();

  constructor(private readonly max: number = RUN_LIMITS.missingFieldReads) {}

  readonly add = (path: unknown, available: unknown): boolean => {
    if (typeof path === 'string' && !this.reads.has(path) && this.reads.size < this.max)
      this.reads.set(path, Array.isArray(available) ? available.filter((k) => typeof k === 'string') : []);
    return this.reads.size < this.max;
  };

  list(): MissingFieldRead[] {
    return [...this.reads].map(([path, available]) => ({ path, available }));
  }
}
