import { expect } from 'chai';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { acquireCatalog } from '../../src/catalog/acquire.js';
import { ERROR_CODES } from '../../src/domain/shared/errors.js';
import { fuzzJson, malformedArguments } from '../support/fuzz-arguments.js';
import { answerOf, postRpc, toolCall } from '../support/mcp.js';
import { newId } from '../../src/domain/shared/ids.js';
import { createLwaClient } from '../../src/marketplace/clients/index.js';
import { DEFAULT_LWA_CLIENT } from '../../src/marketplace/simulator/index.js';
import { projections } from '../../src/projections/registry.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { liveReadAccess, QUICK_RETRY, SELLING_TOKEN } from '../support/marketplace.js';
import { serveMcp, type McpServing } from '../support/mcp.js';
import { startHarness, type Harness } from '../support/observed.js';

// The fuzzer: every tool the service lists (so a tool added later is fuzzed without an edit
// here), called over MCP HTTP (the service's HTTP server, the real event store and read models,
// a seller connected and its listings synced from the simulator), with arguments
// generated from the tool's own input schema and broken (wrong types, missing and extra keys,
// prototype keys, huge and deeply nested values, NUL and lone surrogates, injection strings,
// non-object arguments). Every answer must be a result, or a tool error with a code of spec 7
// other than `unavailable`; never a protocol error of ours, never a hang.
//
// Seeded (FUZZ_SEED overrides; fast-check prints the seed and the shrunk call on a failure) and
// bounded by FUZZ_RUNS calls per tool.

const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
const RUNS = Number(process.env.FUZZ_RUNS ?? 16);
const CALL_TIMEOUT_MS = 20_000;
const SPEC_CODES = new Set<string>(ERROR_CODES);

type Answer = Awaited<ReturnType<typeof postRpc>>;

/** Why an answer breaks the rule, or null when it keeps it. */
function fault(answer: Answer): string | null {
  if (answer.status !== 200 || !answer.body) return `HTTP ${answer.status}`;
  const { result, error } = answer.body;
  if (error) return `JSON-RPC error ${error.code}: ${error.message.slice(0, 300)}`;
  if (!result) return 'neither result nor error';
  if (!result.isError) return null;
  const refusal = answerOf(result).structuredContent;
  const code = refusal.code as string | undefined;
  if (!code || !SPEC_CODES.has(code)) return `error code ${String(code)} is not one of spec 7`;
  if (code === 'unavailable') return `unavailable: ${String(refusal.detail)}`;
  return null;
}

describe('fuzzing every listed tool over MCP HTTP', function () {
  this.timeout(240_000);
  let h: Harness;
  let mcp: McpServing;
  let url: string;
  let headers: Record<string, string>;
  let account: string;
  let tools: Tool[];
  let redis: Redis;

  before(async () => {
    const user = newId();
    h = await startHarness(
      projections.filter((p) => !['accounts', 'observations', 'mutations'].includes(p.name)),
      [],
      Date.now(),
    );
    account = await h.connect('seller', user);
    await h.run(listingsSync, account, SELLING_TOKEN);
    const endpoints = h.simulator.endpoints();
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    // as the service does at start: the catalog tools and live reads then get past 'not acquired yet'
    await acquireCatalog(h.db);
    mcp = await serveMcp(h.db, () => new Date(h.clock.ms), newId(), {
      marketplace: {
        sellingApiUrl: endpoints.sellingApiUrl,
        lwa: createLwaClient({ tokenUrl: endpoints.lwaTokenUrl, ...DEFAULT_LWA_CLIENT }),
        sellingRefreshToken: SELLING_TOKEN,
        retry: QUICK_RETRY,
      },
      liveReads: liveReadAccess(h.simulator, { redis, prefix: `${process.env.REDIS_PREFIX}:fuzz-${newId()}` }),
    });
    url = `${mcp.base}/mcp`;
    headers = { authorization: `Bearer user.${user}` };
    const client = await mcp.clientFor(user);
    ({ tools } = await client.listTools());
  });
  after(async () => {
    await mcp?.close();
    await redis?.quit();
    await h?.close();
  });

  it('lists the tools it fuzzes', () => {
    expect(tools.length).to.be.greaterThan(20);
    expect(tools.map((t) => t.name)).to.include.members(['queue_mutations', 'patch_listing', 'query_data']);
  });

  it(`answers every malformed call with a result or a spec error (seed ${SEED}, ${RUNS} calls per tool)`, async () => {
    // the account's own id now and then, so account-scoped checks are passed and deeper ones reached
    const hints = { account: fc.constant(account) };
    const faults: string[] = [];
    for (const tool of tools) {
      await fc
        .assert(
          fc.asyncProperty(malformedArguments(tool.inputSchema, hints), async (args) => {
            const answer = await postRpc(url, fuzzJson(toolCall(tool.name, args)), headers, CALL_TIMEOUT_MS);
            const why = fault(answer);
            if (why) faults.push(`${tool.name}: ${why}`);
            expect(why, `${tool.name} ${fuzzJson(args)?.slice(0, 300)}`).to.equal(null);
          }),
          { seed: SEED, numRuns: RUNS, endOnFailure: true },
        )
        .catch((err: Error) => faults.push(`${tool.name}: ${err.message.split('\n').slice(0, 4).join(' | ')}`));
    }
    expect(faults, faults.join('\n')).to.deep.equal([]);
  });

  it('still serves after the fuzzing', async () => {
    const status = await postRpc(url, toolCall('connection_status', {}), headers);
    expect(fault(status)).to.equal(null);
    expect(status.body!.result!.structuredContent.accounts.map((a: { id: string }) => a.id)).to.deep.equal([account]);
  });
});
