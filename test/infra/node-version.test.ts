import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { NODE_MAJOR } from '../../src/infra/node-version.js';

const SYSTEM_NODE = '/usr/bin/node';
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** The machine's own Node, when it is there and not the one the service needs. */
function otherNode(): string | null {
  if (!existsSync(SYSTEM_NODE)) return null;
  const version = execFileSync(SYSTEM_NODE, ['--version'], { encoding: 'utf8' }).trim();
  return version.startsWith(`v${NODE_MAJOR}.`) ? null : version;
}

// Every built entry point, run by hand on another Node, stops at once with one line naming the
// Node it needs and the npm script to use, before it loads the sandbox or reaches any service.
describe('entry points on an unsupported Node', function () {
  this.timeout(20_000);

  for (const [entry, command] of [
    ['main.js', 'npm start'],
    ['cli.js', 'npm run cli -- <command>'],
    ['mcp/stdio.js', 'npm run start:stdio'],
  ] as const)
    it(`${entry} names Node ${NODE_MAJOR} and \`${command}\`, and exits 1`, async function () {
      const version = otherNode();
      if (!version) return this.skip(); // no other Node at /usr/bin/node on this machine
      // a database nobody listens on: had anything past the check run, it would say so
      const child = spawn(SYSTEM_NODE, [SRC + entry, 'users', 'create', '--name', 'x'], {
        env: { ...process.env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', REDIS_URL: 'redis://127.0.0.1:1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).to.equal(1);
      expect(out).to.equal('');
      expect(err).to.equal(
        `This service needs Node ${NODE_MAJOR} (found ${version}): run it with \`${command}\` (which uses the pinned Node ${NODE_MAJOR})\n`,
      );
    });
});
