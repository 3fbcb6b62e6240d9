import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { pino } from 'pino';
import { createDb, type Knex } from '../../src/infra/db.js';
import { buildHttpServer } from '../../src/mcp/server.js';
import {
  failures,
  requiredServerScenarios,
  runConformance,
  type Check,
  type ConformanceRun,
} from '../support/conformance.js';
import { CONFORMANCE_FIXTURE } from '../support/conformance-fixture.js';
import { startOwnService, type OwnService } from '../support/service.js';

// The official conformance suite against the service. The real endpoint (/demo/mcp of the service
// as `npm start` runs it; the suite's CLI sends no bearer token, and /mcp differs only by its
// sign-in) takes the scenarios that need nothing but our own catalog, on revision 2026-07-28 and
// on the 2025 wire. The scenarios that call the suite's fixture tools, resources and prompts run
// against an endpoint built from the same server factory, transport, limits and error mapping,
// serving the fixture catalog (test only). No expected failures.

/** Checks the suite cannot make without its diagnostic tools, which only the fixture endpoint has (it passes them there). */
const needsFixtureTools = (_scenario: string, check: Check) =>
  check.errorMessage?.startsWith('Not testable: server does not list the diagnostic tool') === true;

/** A scenario's check by id (it must have run). */
const check = (run: ConformanceRun, scenario: string, id: string): Check => {
  const found = run.scenarios.get(scenario)?.find((c) => c.id === id);
  expect(found, `${scenario}: ${id}`).to.exist;
  return found!;
};

/** The list scenarios passed on the service's own resources and prompts (spec 1.7, 1.8), not on empty lists. */
function expectServiceCatalogRead(run: ConformanceRun): void {
  expect(check(run, 'resources-list', 'resources-list').details?.resources).to.include.members([
    'resource://service/changelog.md',
    'resource://service/data-dictionary.json',
    'resource://service/workflows.md',
    'resource://service/amazon-catalog',
  ]);
  expect(check(run, 'prompts-list', 'prompts-list').details?.prompts).to.deep.equal([
    'ad_waste_audit',
    'margin_repricing',
    'restock_protection',
  ]);
}

describe('MCP conformance (the official suite, pinned)', function () {
  this.timeout(300_000);
  let service: OwnService;
  let db: Knex;
  let fixture: ReturnType<typeof buildHttpServer>;
  let fixtureUrl: string;

  before(async () => {
    service = await startOwnService('conformance');
    db = createDb(service.env.DATABASE_URL!);
    fixture = buildHttpServer({
      db,
      logger: pino({ level: 'silent' }),
      authenticate: async () => null,
      demoUserId: '00000000-0000-4000-8000-000000000000',
      catalog: CONFORMANCE_FIXTURE,
    });
    await fixture.listen({ port: 0, host: '127.0.0.1' });
    fixtureUrl = `http://127.0.0.1:${(fixture.server.address() as AddressInfo).port}/demo/mcp`;
  });
  after(async () => {
    await fixture?.close();
    await db?.destroy();
    await service?.stop();
  });

  const scenarios = async (url: string, version: string, names: string[]) => {
    const runs = await Promise.all(
      names.map((name) => runConformance(url, ['--scenario', name, '--spec-version', version])),
    );
    return { code: Math.max(...runs.map((r) => r.code)), scenarios: new Map(runs.flatMap((r) => [...r.scenarios])) };
  };

  it('every server scenario 2026-07-28 requires, against the fixture endpoint', async () => {
    const run = await runConformance(fixtureUrl, ['--requirements', '2026-07-28']);
    const required = await requiredServerScenarios('2026-07-28');
    expect(required.length, 'the requirement set read').to.be.greaterThan(30);
    expect([...run.scenarios.keys()]).to.include.members(required);
    const requiredFailures = failures(run).filter((f) => required.includes(f.slice(0, f.indexOf(':'))));
    expect(requiredFailures).to.deep.equal([]);
    expect(run.code, 'the suite scores the run as passing').to.equal(0);
  });

  it('the 2026-07-28 scenarios of the real /demo/mcp: stateless, discover, lists, caching, not-found, DNS rebinding', async () => {
    const names = [
      'server-stateless',
      'tools-list',
      'resources-list',
      'prompts-list',
      'caching',
      'sep-2164-resource-not-found',
      'dns-rebinding-protection',
    ];
    const run = await scenarios(`${service.base}/demo/mcp`, '2026-07-28', names);
    expect([...run.scenarios.keys()]).to.have.members(names);
    expect(failures(run, needsFixtureTools)).to.deep.equal([]);
    expectServiceCatalogRead(run);
    // caching hints on a read of the service's first resource, not skipped for want of one
    expect(check(run, 'caching', 'sep-2549-resources-read-caching-hints').status).to.equal('SUCCESS');
  });

  it('the 2025-11-25 scenarios of the real /demo/mcp: initialize, ping, lists, DNS rebinding', async () => {
    const names = [
      'server-initialize',
      'ping',
      'tools-list',
      'resources-list',
      'prompts-list',
      'dns-rebinding-protection',
    ];
    const run = await scenarios(`${service.base}/demo/mcp`, '2025-11-25', names);
    expect([...run.scenarios.keys()]).to.have.members(names);
    expect(failures(run)).to.deep.equal([]);
    expectServiceCatalogRead(run);
    expect(run.code).to.equal(0);
  });
});
