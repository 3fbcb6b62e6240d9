import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { percentile } from '../support.js';

// Timing MCP round trips, shared by bench:mcp and bench:catalog: a client pinned to a revision,
// the revision's cheapest round trip (the floor every tool call pays), and two calls timed
// taking turns so that both meet the same moment of the machine.

export type Revision = '2026-07-28' | '2025-11-25';
export const REVISIONS: Revision[] = ['2026-07-28', '2025-11-25'];

export async function connect(url: string, revision: Revision): Promise<Client> {
  const client = new Client(
    { name: 'bench-mcp', version: '1.0.0' },
    revision === '2026-07-28'
      ? { versionNegotiation: { mode: { pin: revision } } }
      : { supportedProtocolVersions: [revision] },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  if (client.getNegotiatedProtocolVersion() !== revision)
    throw new Error(`${url}: negotiated ${client.getNegotiatedProtocolVersion()}, not ${revision}`);
  return client;
}

/** the revision's cheapest round trip */
export const ping = (client: Client, revision: Revision) =>
  revision === '2026-07-28' ? client.request({ method: 'server/discover', params: {} }) : client.ping();

export interface Times {
  p50: number;
  p99: number;
}

export const WARM_UP = 100;

/**
 * p50 and p99 (ms) of `calls` sequential runs of each, taking turns (first, second, first, …) so
 * that both meet the same moment of the machine, after WARM_UP turns unmeasured (the JIT).
 */
export async function timeSideBySide(
  first: () => Promise<unknown>,
  second: () => Promise<unknown>,
  calls: number,
): Promise<[Times, Times]> {
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < WARM_UP + calls; i++)
    for (const [k, run] of [first, second].entries()) {
      const t = performance.now();
      await run();
      if (i >= WARM_UP) times[k]!.push(performance.now() - t);
    }
  return times.map((ts) => {
    ts.sort((a, b) => a - b);
    return { p50: percentile(ts, 0.5), p99: percentile(ts, 0.99) };
  }) as [Times, Times];
}
