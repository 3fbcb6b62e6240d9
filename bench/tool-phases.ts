import { subscribe } from 'node:diagnostics_channel';
import { toolCallPhases, type ToolCallPhases } from '../src/mcp/phases.js';

// Where an MCP tool call's time goes, phase by phase (src/mcp/phases.ts), for a benchmark whose
// service runs in its own process: the tool's phases and what is left for HTTP, the SDK and the client.

const REST = 'HTTP, SDK and client (the rest)';

/** Runs one call of `tool` and adds its phases to `into` (nothing when the tool published none). */
export async function withPhases<T>(tool: string, into: Array<Record<string, number>>, call: () => Promise<T>) {
  const started = performance.now();
  let phases: ToolCallPhases['phases'] | undefined;
  const listen = (message: unknown) => {
    if ((message as ToolCallPhases).tool === tool) phases = (message as ToolCallPhases).phases;
  };
  subscribe(toolCallPhases.name, listen);
  const answer = await call().finally(() => toolCallPhases.unsubscribe(listen));
  if (phases) {
    const inTool = Object.values(phases).reduce((a, b) => a + b, 0);
    into.push({ ...phases, [REST]: performance.now() - started - inTool });
  }
  return answer;
}

/** Each phase's median over the calls (the medians need not add up to a call's), one line each. */
export function printPhases(title: string, calls: ReadonlyArray<Record<string, number>>, indent = '  '): void {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`${indent}${title}, median of ${calls.length} calls:`);
  for (const phase of Object.keys(calls[0] ?? {}))
    console.log(
      `${indent}  ${phase.padEnd(38)} ${`${median(calls.map((p) => p[phase] ?? 0)).toFixed(2)} ms`.padStart(10)}`,
    );
}
