import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DEMO_SCALE } from '../../src/marketplace/simulator/index.js';
import { withSyncedProfile } from '../profile.js';
import { REPRICING, TRIVIAL } from './fixtures.js';
import { statementCounter, statementKinds } from '../statements.js';
import { printPhases, withPhases } from '../tool-phases.js';

// The mcp-dry phase: run_automation p50 / p99 through MCP over HTTP on the demo seller synced by
// the service's real path (api, projector and worker roles), for a trivial handler and the
// repricing one, each on the canned ANY_OFFER_CHANGED sample (which names the account's newest
// listing, so the context is built from the demo read models), next to an MCP ping (the floor).
// Goals (docs/decisions/044-dry-runs.md): p50 ≤ 25 ms, p99 ≤ 100 ms.

export interface Timing {
  p50: number;
  p99: number;
}
type Timed = (n: number, ...variants: Array<() => Promise<unknown>>) => Promise<Timing[]>;

export async function mcpDryPhase(runs: number, adminUrl: string, timed: Timed): Promise<Timing[]> {
  // a benchmark is one caller running far more than spec 8's 30 dry runs a minute
  process.env.DRY_RUNS_PER_MINUTE = '1000000';
  let figures: Timing[] = [];
  await withSyncedProfile({ adminUrl, scale: DEMO_SCALE }, async ({ service }) => {
    const client = new Client({ name: 'bench-automations', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/demo/mcp`)));
    const dryRun = (code: string) => async () => {
      const res = await client.callTool({
        name: 'run_automation',
        arguments: { code, stream_type: 'ANY_OFFER_CHANGED' },
      });
      if (res.isError) throw new Error(`run_automation: ${JSON.stringify(res.structuredContent)}`);
    };
    try {
      console.log(`mcp-dry: run_automation over MCP HTTP (${service.url}/demo/mcp), ${runs} calls each, taking turns`);
      figures = await timed(runs, () => client.ping(), dryRun(TRIVIAL), dryRun(REPRICING));
      // what one dry run asks of PostgreSQL (the service runs in this process) and where its time
      // goes, apart from the timed calls: listening to the phases costs a clock read per phase
      const [count, kinds] = [statementCounter(), statementKinds()];
      const phases: Array<Record<string, number>> = [];
      for (let i = 0; i < runs; i++) await withPhases('run_automation', phases, dryRun(REPRICING));
      console.log(`  statements per dry run (repricing): ${(count() / runs).toFixed(1)}, of which:`);
      for (const [kind, n] of kinds().slice(0, 8)) console.log(`    ${(n / runs).toFixed(2).padStart(6)}  ${kind}`);
      printPhases("run_automation's phases (repricing)", phases);
    } finally {
      await client.close();
    }
  });
  return figures;
}
