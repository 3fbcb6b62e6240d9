import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { dropRedisKeys } from '../support/env.js';
import { eventually, freePort, runEntry, waitForLog, type Spawned } from '../support/processes.js';

// The same service spread over three processes sharing PostgreSQL, Redis and the event
// store: the simulator and worker in one, the projector in another, the API in a third.
describe('process roles', function () {
  this.timeout(90000);
  const processes: Spawned[] = [];

  after(async () => {
    for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all(processes.map((p) => p.exit));
    // the run's own keys are dropped by prefix; these processes used a prefix of their own
    await dropRedisKeys(`${process.env.REDIS_PREFIX}-roles:*`);
  });

  it('serves connection_status with each role in its own process, and each drains on SIGTERM', async () => {
    const env = {
      DATABASE_URL: process.env.DATABASE_URL!,
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}-roles`,
      PORT: '0',
      SIMULATOR_PORT: String(await freePort()),
      LOG_LEVEL: 'info',
      PROJECTOR_POLL_MS: '100',
    };
    const started = (s: Spawned) => waitForLog(s, (r) => r.msg === 'service started');
    const worker = runEntry('main.js', ['--role', 'simulator', '--role', 'worker'], env);
    const projector = runEntry('main.js', ['--role', 'projector'], env);
    const api = runEntry('main.js', ['--role', 'api'], env);
    processes.push(worker, projector, api);
    const [, , apiStarted] = await Promise.all([started(worker), started(projector), started(api)]);
    expect(worker.logs.find((r) => r.msg === 'service started')!.url, 'no HTTP server outside the api role').to.equal(
      null,
    );

    const client = new Client({ name: 'roles', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${apiStarted.url as string}/demo/mcp`)));
    const accounts = await eventually(async () => {
      const out = (await client.callTool({ name: 'connection_status', arguments: {} })).structuredContent as {
        accounts: Array<{ ads: { profiles: unknown[] } | null }>;
      };
      return out.accounts[0]?.ads?.profiles.length ? out.accounts : undefined;
    }, 'the demo account through three processes');
    expect(accounts[0]!.ads!.profiles).to.have.length(5);
    await client.close();

    for (const p of processes) p.child.kill('SIGTERM');
    const codes = await Promise.all(processes.map((p) => p.exit));
    // a role that did not drain cleanly says why in its last lines
    const last = processes.map((p) =>
      p.logs.slice(-6).map((r) => `${String(r.msg)}${r.err ? `: ${JSON.stringify(r.err)}` : ''}`),
    );
    expect(codes, JSON.stringify(last, null, 1)).to.deep.equal([0, 0, 0]);
  });

  it('refuses an unknown role with one line', async () => {
    const s = runEntry('main.js', ['--role', 'bogus'], { DATABASE_URL: process.env.DATABASE_URL! });
    expect(await s.exit).to.equal(1);
    expect(s.stderr().trim()).to.equal('cannot start: unknown role bogus; roles are api, projector, worker, simulator');
  });
});
