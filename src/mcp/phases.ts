import { channel } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';

// Where a tool call's time goes, phase by phase, for whoever subscribes in the process
// (bench:query_data). Published only while someone listens: a call without listeners pays one
// check and no clock.

export interface ToolCallPhases {
  tool: string;
  /** milliseconds per phase, in the order the phases ended */
  phases: Record<string, number>;
}

export const toolCallPhases = channel('marketplace-automation:tool-call-phases');

/** Ends the phase running since the last lap (or the call's start) and names it. */
export type Lap = (phase: string) => void;

/** A clock for one call when someone listens, with what publishes its phases; else undefined. */
export function phaseClock(tool: string): { lap: Lap; publish(): void } | undefined {
  if (!toolCallPhases.hasSubscribers) return undefined;
  const phases: Record<string, number> = {};
  let last = performance.now();
  return {
    lap(phase) {
      const now = performance.now();
      phases[phase] = (phases[phase] ?? 0) + now - last;
      last = now;
    },
    publish: () => toolCallPhases.publish({ tool, phases } satisfies ToolCallPhases),
  };
}
